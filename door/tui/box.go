package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// measured is text laid out in lines whose widths in cells are known.
type measured struct {
	lines  []string
	widths []int
}

// measure lays out s (lines no wider than w; wider ones are cut).
func measure(s string, w int) measured {
	var m measured
	for l := range strings.SplitSeq(s, "\n") {
		m.add(l, w)
	}
	return m
}

func (m *measured) add(l string, w int) {
	n := ansi.StringWidth(l)
	if n > w {
		l = ansi.Truncate(l, w, "")
		n = ansi.StringWidth(l)
	}
	m.lines, m.widths = append(m.lines, l), append(m.widths, n)
}

func (m *measured) extend(lines []string, widths []int) {
	m.lines, m.widths = append(m.lines, lines...), append(m.widths, widths...)
}

// box draws text in a rounded border with one cell of padding on each
// side: innerW cells of text, h lines in all (border included). It is the
// cheap equivalent of a lipgloss border style for text already laid out
// and measured.
func box(text measured, innerW, h int, border lipgloss.Style) string {
	return labeledBox(text, innerW, h, border, "", "")
}

// labeledBox is box with a label at the right of its top border and one
// at the right of its bottom border ("" for none): where a scrolling
// pane is.
func labeledBox(text measured, innerW, h int, border lipgloss.Style, top, bottom string) string {
	var b strings.Builder
	b.WriteString(border.Render("╭") + edgeWith(border, innerW+2, top) + border.Render("╮"))
	side := border.Render("│")
	rows := max(0, h-2)
	for i := range rows {
		line, w := "", 0
		if i < len(text.lines) {
			line, w = text.lines[i], text.widths[i]
		}
		b.WriteString("\n" + side + " " + line + strings.Repeat(" ", max(0, innerW-w)) + " " + side)
	}
	b.WriteString("\n" + border.Render("╰") + edgeWith(border, innerW+2, bottom) + border.Render("╯"))
	return b.String()
}

// edgeWith is a border's edge of w cells with label near its right end,
// when it fits.
func edgeWith(border lipgloss.Style, w int, label string) string {
	n := ansi.StringWidth(label)
	if label == "" || n+5 > w {
		return border.Render(strings.Repeat("─", w))
	}
	return border.Render(strings.Repeat("─", w-n-4)+" ") + label + border.Render(" ──")
}

// scrollLabels are a scrolling pane's labels: above, how much more there
// is above ("↑ 12 more"); below, which lines show ("13–40 of 57 ↓"). Both
// are "" when the pane shows all it holds.
func scrollLabels(st Styles, s *scroller) (top, bottom string) {
	n := len(s.lines)
	if n <= s.h {
		return "", ""
	}
	end := min(n, s.off+s.h)
	if s.off > 0 {
		top = st.Warn.Render(fmt.Sprintf("↑ %d more", s.off))
	}
	return top, st.Muted.Render(position(s.off, end, n))
}

// beside puts right to the right of left, whose lines are padded to lw
// cells; the result has as many lines as the taller.
func beside(left string, lw int, right string) string {
	l, r := strings.Split(left, "\n"), strings.Split(right, "\n")
	var b strings.Builder
	for i := range max(len(l), len(r)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := ""
		if i < len(l) {
			line = l[i]
		}
		if n := ansi.StringWidth(line); n > lw {
			line = ansi.Truncate(line, lw, "…")
		} else {
			line += strings.Repeat(" ", lw-n)
		}
		b.WriteString(line)
		if i < len(r) {
			b.WriteString(r[i])
		}
	}
	return b.String()
}

// joinColumns puts blocks of text side by side, line by line; each block
// is as wide on every line (as box draws them).
func joinColumns(left, right string) string {
	l, r := strings.Split(left, "\n"), strings.Split(right, "\n")
	var b strings.Builder
	for i := range max(len(l), len(r)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(l) {
			b.WriteString(l[i])
		}
		if i < len(r) {
			b.WriteString(r[i])
		}
	}
	return b.String()
}
