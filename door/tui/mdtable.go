package tui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Markdown tables are laid out here, not by glamour: glamour gives a
// table the width of its block but indents it by the document's margin,
// and cuts what then overflows — "$7.3" for "$7.3k", a header "Tota".
// Here a table is as wide as its pane at most: its cells wrap, and a
// table too wide for columns of a few cells is shown as one record per
// row ("Total: $7.3k"). Nothing of a cell is ever dropped.

// delimiterRow is a table's second line: | --- | :---: | ---: |.
var delimiterRow = regexp.MustCompile(`^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// tableAt reports whether a table starts at lines[i]: a line with a pipe,
// then a delimiter row of as many cells.
func tableAt(lines []string, i int) bool {
	if i+1 >= len(lines) || !strings.Contains(lines[i], "|") || strings.HasPrefix(lines[i], "    ") {
		return false
	}
	d := strings.TrimRight(lines[i+1], "\r\n")
	return delimiterRow.MatchString(d) && strings.Contains(d, "-") &&
		(strings.Contains(d, "|") || len(tableCells(lines[i])) == 1) && len(tableCells(d)) == len(tableCells(lines[i]))
}

// isTable reports whether a piece of markdown is one table (pieces puts
// each table in a piece of its own).
func isTable(piece string) bool {
	lines := strings.Split(strings.TrimLeft(piece, "\n"), "\n")
	return tableAt(lines, 0)
}

// tableCells splits a table line into its cells: on pipes not escaped
// and not in code, without the line's leading and trailing pipe.
func tableCells(line string) []string {
	line = strings.TrimSpace(strings.TrimRight(line, "\r\n"))
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	var b strings.Builder
	code := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
			continue
		case c == '`':
			code = !code
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// cellText is a cell's text as shown: its emphasis and code marks gone.
func cellText(s string) string {
	return strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
}

// tableAlign is a column's alignment: 'l', 'r' or 'c'.
func tableAlign(delim string) byte {
	d := strings.TrimSpace(delim)
	switch {
	case strings.HasPrefix(d, ":") && strings.HasSuffix(d, ":"):
		return 'c'
	case strings.HasSuffix(d, ":"):
		return 'r'
	}
	return 'l'
}

// tableMargin is the table's indent, glamour's document margin.
const tableMargin = "  "

// renderTable lays out a markdown table (one table, as isTable says) in
// width cells: bold headers when theme has colour.
func renderTable(piece string, width int, theme string) string {
	lines := strings.Split(strings.Trim(piece, "\n"), "\n")
	head := tableCells(lines[0])
	delims := tableCells(lines[1])
	n := len(head)
	var rows [][]string
	for _, l := range lines[2:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		cells := tableCells(l)
		row := make([]string, n)
		for i := range row {
			if i < len(cells) {
				row[i] = cellText(cells[i])
			}
		}
		rows = append(rows, row)
	}
	for i := range head {
		head[i] = cellText(head[i])
	}
	bold := func(s string) string {
		if theme == "notty" || s == "" {
			return s
		}
		return "\x1b[1m" + s + "\x1b[22m"
	}
	avail := width - len(tableMargin)
	// Each column as wide as its widest cell, and at least as wide as its
	// longest word, or the table is shown as records.
	widths, words := make([]int, n), make([]int, n)
	for i := range n {
		for _, c := range append([]string{head[i]}, column(rows, i)...) {
			widths[i] = max(widths[i], ansi.StringWidth(c))
			for _, w := range strings.Fields(c) {
				words[i] = max(words[i], ansi.StringWidth(w))
			}
		}
		widths[i], words[i] = max(1, widths[i]), max(1, min(widths[i], words[i], avail/2))
	}
	budget := avail - (n - 1) - 2*n // separators, and a space each side of a cell
	if sum(words) > budget {
		return tableRecords(head, rows, width, bold)
	}
	for sum(widths) > budget {
		widest := -1
		for i, w := range widths {
			if w > words[i] && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		widths[widest]--
	}
	var b strings.Builder
	row := func(cells []string, style func(string) string) {
		wrapped := make([][]string, n)
		height := 1
		for i, c := range cells {
			wrapped[i] = wrapCell(c, widths[i])
			height = max(height, len(wrapped[i]))
		}
		for l := range height {
			b.WriteString(tableMargin)
			for i := range n {
				if i > 0 {
					b.WriteString("│")
				}
				text := ""
				if l < len(wrapped[i]) {
					text = wrapped[i][l]
				}
				b.WriteString(" " + style(align(text, widths[i], tableAlign(delims[i]))) + " ")
			}
			b.WriteByte('\n')
		}
	}
	row(head, bold)
	b.WriteString(tableMargin)
	for i, w := range widths {
		if i > 0 {
			b.WriteString("┼")
		}
		b.WriteString(strings.Repeat("─", w+2))
	}
	b.WriteByte('\n')
	for _, r := range rows {
		row(r, func(s string) string { return s })
	}
	return strings.TrimRight(b.String(), "\n")
}

// tableRecords shows a table too wide for its columns as one record per
// row, each cell on a line of its own after its header.
func tableRecords(head []string, rows [][]string, width int, bold func(string) string) string {
	var b strings.Builder
	for ri, r := range rows {
		if ri > 0 {
			b.WriteByte('\n')
		}
		for i, c := range r {
			label := head[i]
			if label == "" {
				label = "–"
			}
			for _, l := range wrapCell(bold(label)+": "+c, max(1, width-len(tableMargin))) {
				b.WriteString(tableMargin + l + "\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// wrapCell wraps a cell's text to w cells, at spaces where it can and
// within a word longer than w.
func wrapCell(s string, w int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	return strings.Split(ansi.Hardwrap(wordWrap(s, w), w, true), "\n")
}

// align pads s to w cells, as a column aligns it.
func align(s string, w int, a byte) string {
	gap := max(0, w-ansi.StringWidth(s))
	switch a {
	case 'r':
		return strings.Repeat(" ", gap) + s
	case 'c':
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}

// column is the cells of column i.
func column(rows [][]string, i int) []string {
	out := make([]string, len(rows))
	for r, row := range rows {
		out[r] = row[i]
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
