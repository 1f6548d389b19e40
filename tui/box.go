package tui

import (
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
	var b strings.Builder
	edge := strings.Repeat("─", innerW+2)
	b.WriteString(border.Render("╭" + edge + "╮"))
	side := border.Render("│")
	rows := max(0, h-2)
	for i := range rows {
		line, w := "", 0
		if i < len(text.lines) {
			line, w = text.lines[i], text.widths[i]
		}
		b.WriteString("\n" + side + " " + line + strings.Repeat(" ", max(0, innerW-w)) + " " + side)
	}
	b.WriteString("\n" + border.Render("╰"+edge+"╯"))
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
