package tui

import (
	"strings"
)

// Block quotes are formatted here, not by glamour: glamour wraps a
// quote's text to the width and then adds the quote's bar, so at many
// widths a line comes out wider than the pane and its last word falls
// out of the quote, onto a line of its own without the bar. Here a
// quote's text is formatted as markdown two cells narrower and the bar is
// put in front of each of its lines.

// quoteBar is what starts each line of a block quote, after the margin.
const quoteBar = "│ "

// renderPiece formats one piece of markdown at width: its block quotes
// by renderQuote, the rest by glamour, joined as glamour joins blocks.
func (m *markdown) renderPiece(text string, width int, theme string) (string, error) {
	segs := quoteSegments(text)
	if len(segs) == 1 && !segs[0].quote {
		return m.render(text, width, theme)
	}
	var parts []string
	for _, s := range segs {
		var out string
		var err error
		if s.quote {
			out, err = m.renderQuote(s.text, width, theme)
		} else {
			out, err = m.render(s.text, width, theme)
		}
		if err != nil {
			return "", err
		}
		if out = strings.Trim(onlySGR(out), "\n"); strings.TrimSpace(out) != "" {
			parts = append(parts, out)
		}
	}
	return "\n" + strings.Join(parts, "\n\n") + "\n", nil
}

// renderQuote formats a block quote: its text, one level of '>' taken
// off, two cells narrower, with the bar after each line's margin.
func (m *markdown) renderQuote(text string, width int, theme string) (string, error) {
	inner, err := m.renderPiece(unquote(text), max(8, width-len([]rune(quoteBar))), theme)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.Trim(onlySGR(inner), "\n"), "\n")
	for i, l := range lines {
		margin := len(l) - len(strings.TrimLeft(l, " "))
		margin = min(margin, glamourMargin)
		lines[i] = l[:margin] + strings.Repeat(" ", glamourMargin-margin) + quoteBar + l[margin:]
	}
	return strings.Join(lines, "\n"), nil
}

// glamourMargin is the left margin glamour gives a document.
const glamourMargin = 2

// unquote takes one level of '>' off each line of a block quote: up to
// three spaces, the '>', and one space after it. A line without '>' (a
// lazy continuation) stays as it is.
func unquote(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 && strings.HasPrefix(t, ">") {
			t = strings.TrimPrefix(t[1:], " ")
			b.WriteString(t)
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// segment is a run of blocks that are all block quotes, or none.
type segment struct {
	text  string
	quote bool
}

// quoteSegments cuts markdown text at the blank lines where block quotes
// begin and end. Fenced code is never cut, nor looked into.
func quoteSegments(text string) []segment {
	var out []segment
	var cur strings.Builder
	curQuote, inBlock := false, false
	var fence string
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, segment{cur.String(), curQuote})
			cur.Reset()
		}
	}
	for line := range strings.Lines(text) {
		blank := strings.TrimSpace(line) == ""
		if fence == "" && !blank && !inBlock {
			// The first line of a block decides what it is.
			t := strings.TrimLeft(line, " ")
			quote := len(line)-len(t) <= 3 && strings.HasPrefix(t, ">")
			if quote != curQuote {
				flush()
				curQuote = quote
			}
		}
		if f, ok := fenceOf(line); ok && !curQuote {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
		}
		inBlock = !blank || fence != ""
		cur.WriteString(line)
	}
	flush()
	if len(out) == 0 {
		out = []segment{{text, false}}
	}
	return out
}
