package threeway

import "strings"

// The conflict markers of a suggested synthesis, each on a line of its own.
const (
	MarkerA   = "<<<<<<< A"
	MarkerSep = "======="
	MarkerB   = ">>>>>>> B"
)

// Suggest writes the suggested synthesis: every settled change taken
// (what one side changed, what both changed alike), the common text
// kept, and every line with a disputed region written as A's and B's
// alternatives between conflict markers. unsettled is how many
// alternatives are left; 0 means the text is a whole synthesis.
func (c Comparison) Suggest() (text string, unsettled int) {
	var out, lineA, lineB strings.Builder
	disputed := false
	flush := func() {
		if !disputed {
			out.WriteString(lineA.String())
		} else {
			unsettled++
			out.WriteString(MarkerA + "\n")
			writeLines(&out, lineA.String())
			out.WriteString(MarkerSep + "\n")
			writeLines(&out, lineB.String())
			out.WriteString(MarkerB + "\n")
		}
		lineA.Reset()
		lineB.Reset()
		disputed = false
	}
	atLineStart := func(b *strings.Builder) bool {
		return b.Len() == 0 || strings.HasSuffix(b.String(), "\n")
	}
	for _, r := range c.Regions {
		if r.Change == Disputed {
			lineA.WriteString(r.A)
			lineB.WriteString(r.B)
			disputed = true
			if atLineStart(&lineA) && atLineStart(&lineB) {
				flush()
			}
			continue
		}
		settled := r.A // Unchanged and ChangedBoth: A == B
		if r.Change == ChangedB {
			settled = r.B
		}
		for settled != "" {
			n := strings.IndexByte(settled, '\n') + 1
			if n == 0 {
				n = len(settled)
			}
			lineA.WriteString(settled[:n])
			lineB.WriteString(settled[:n])
			if settled[n-1] == '\n' {
				flush()
			}
			settled = settled[n:]
		}
	}
	if lineA.Len() > 0 || lineB.Len() > 0 || disputed {
		// The texts end without a line break: so does the synthesis.
		open := disputed
		flush()
		if open {
			return strings.TrimSuffix(out.String(), "\n"), unsettled
		}
	}
	return out.String(), unsettled
}

// writeLines writes s and ends it with a line break if it has none.
func writeLines(b *strings.Builder, s string) {
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// Unsettled counts the alternatives left in text: lines beginning with
// <<<<<<<, and lines beginning with >>>>>>> that close none.
func Unsettled(text string) int {
	n, open := 0, false
	for line := range strings.Lines(text) {
		switch {
		case strings.HasPrefix(line, "<<<<<<<"):
			n++
			open = true
		case strings.HasPrefix(line, ">>>>>>>"):
			if !open {
				n++
			}
			open = false
		}
	}
	return n
}
