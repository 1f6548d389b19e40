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
// kept, and every line with a disputed region written twice, as A wrote
// it and as B wrote it, between conflict markers. unsettled is how many
// such alternatives are left; 0 means the text is a whole synthesis.
func (c Comparison) Suggest() (text string, unsettled int) {
	var out strings.Builder
	// The current line (or lines, where the versions break lines
	// differently) as merged and as each side has it.
	var merged, lineA, lineB strings.Builder
	disputed := false
	flush := func() {
		if !disputed {
			out.WriteString(merged.String())
		} else {
			unsettled++
			out.WriteString(MarkerA + "\n")
			writeLines(&out, lineA.String())
			out.WriteString(MarkerSep + "\n")
			writeLines(&out, lineB.String())
			out.WriteString(MarkerB + "\n")
		}
		merged.Reset()
		lineA.Reset()
		lineB.Reset()
		disputed = false
	}
	aligned := func() bool {
		for _, b := range []*strings.Builder{&merged, &lineA, &lineB} {
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				return false
			}
		}
		return true
	}
	for _, r := range c.Regions {
		if r.Change == Unchanged { // every version alike: flush at each line's end
			for s := r.A; s != ""; {
				n := strings.IndexByte(s, '\n') + 1
				if n == 0 {
					n = len(s)
				}
				merged.WriteString(s[:n])
				lineA.WriteString(s[:n])
				lineB.WriteString(s[:n])
				if aligned() {
					flush()
				}
				s = s[n:]
			}
			continue
		}
		switch r.Change {
		case ChangedB:
			merged.WriteString(r.B)
		case Disputed:
			disputed = true
		default: // ChangedA, ChangedBoth
			merged.WriteString(r.A)
		}
		lineA.WriteString(r.A)
		lineB.WriteString(r.B)
		if aligned() {
			flush()
		}
	}
	if merged.Len() > 0 || lineA.Len() > 0 || lineB.Len() > 0 || disputed {
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

// Settle settles the first alternative left in text with side's lines
// ('A' or 'B'): the marker lines go, and the other side's lines with
// them. ok is false when text holds no whole alternative.
func Settle(text string, side byte) (settled string, ok bool) {
	lines := strings.SplitAfter(text, "\n")
	start, sep, end := -1, -1, -1
	for i, line := range lines {
		switch {
		case start < 0 && strings.HasPrefix(line, "<<<<<<<"):
			start = i
		case start >= 0 && sep < 0 && strings.HasPrefix(line, "======="):
			sep = i
		case sep >= 0 && strings.HasPrefix(line, ">>>>>>>"):
			end = i
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return text, false
	}
	kept := lines[start+1 : sep]
	if side == 'B' {
		kept = lines[sep+1 : end]
	}
	var out strings.Builder
	for _, l := range lines[:start] {
		out.WriteString(l)
	}
	for _, l := range kept {
		out.WriteString(l)
	}
	rest := lines[end+1:]
	if len(rest) == 0 || (len(rest) == 1 && rest[0] == "") {
		// The alternative ended the text: so does what was kept, with a
		// line break only if the markers' text had one.
		if !strings.HasSuffix(lines[end], "\n") {
			return strings.TrimSuffix(out.String(), "\n"), true
		}
	}
	for _, l := range rest {
		out.WriteString(l)
	}
	return out.String(), true
}
