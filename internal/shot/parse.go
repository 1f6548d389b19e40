package shot

import (
	"image/color"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Cell is one terminal cell of a parsed frame.
type Cell struct {
	// Content is the grapheme cluster shown in the cell: " " when blank and
	// "" in the column a wide character to its left spills into.
	Content string
	// Width is 1, or 2 for a wide character (CJK, most emoji); 0 marks the
	// column covered by the wide character to its left.
	Width int
	// Fg and Bg are nil for the terminal default, otherwise a color.RGBA
	// (palette indices are resolved with the xterm palette).
	Fg, Bg color.Color

	Bold, Faint, Italic, Underline, Reverse, Strike bool
}

// Grid is a frame laid out on a Width × Height cell grid.
type Grid struct {
	Width, Height int
	Cells         []Cell // row-major: the cell at (x, y) is Cells[y*Width+x]
}

// At returns the cell at column x, row y (both from 0).
func (g *Grid) At(x, y int) Cell {
	return g.Cells[y*g.Width+x]
}

// Parse lays a rendered frame out on a grid, the way a terminal of width ×
// height cells would show it. A width of 0 means the widest line and a height
// of 0 the number of lines. Lines longer than width are cut off, and lines
// past height dropped. Only SGR escape sequences are interpreted; cursor
// movement and other sequences are ignored.
func Parse(frame string, width, height int) *Grid {
	frame = sanitize(frame)
	if width <= 0 || height <= 0 {
		lines := strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
		if height <= 0 {
			height = len(lines)
		}
		if width <= 0 {
			for _, l := range lines {
				width = max(width, ansi.StringWidth(l))
			}
		}
	}
	width, height = max(width, 1), max(height, 1)

	buf := uv.NewScreenBuffer(width, height)
	buf.Method = ansi.GraphemeWidth // how lipgloss measures text
	uv.NewStyledString(frame).Draw(buf, buf.Bounds())

	g := &Grid{Width: width, Height: height, Cells: make([]Cell, 0, width*height)}
	for y := range height {
		for x := range width {
			g.Cells = append(g.Cells, fromUV(buf.CellAt(x, y)))
		}
	}
	return g
}

func fromUV(c *uv.Cell) Cell {
	if c == nil {
		return Cell{Content: " ", Width: 1}
	}
	s := c.Style
	cell := Cell{
		Content:   c.Content,
		Width:     c.Width,
		Fg:        resolve(s.Fg),
		Bg:        resolve(s.Bg),
		Bold:      s.Attrs&uv.AttrBold != 0,
		Faint:     s.Attrs&uv.AttrFaint != 0,
		Italic:    s.Attrs&uv.AttrItalic != 0,
		Underline: s.Underline != uv.UnderlineNone,
		Reverse:   s.Attrs&uv.AttrReverse != 0,
		Strike:    s.Attrs&uv.AttrStrikethrough != 0,
	}
	if cell.Width > 0 && cell.Content == "" {
		cell.Content = " "
	}
	return cell
}

// sanitize keeps what Parse understands — text, SGR sequences, line feeds
// and carriage returns — expands tabs to 8-column stops, and drops every other
// control character and escape sequence, which ultraviolet would otherwise
// fold into the next cell.
func sanitize(frame string) string {
	frame = strings.ReplaceAll(frame, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(frame))
	p := ansi.GetParser()
	defer ansi.PutParser(p)
	var state byte
	col := 0
	for len(frame) > 0 {
		seq, w, n, next := ansi.DecodeSequence(frame, state, p)
		switch {
		case w > 0:
			b.WriteString(seq)
			col += w
		case seq[0] >= 0xc0: // a zero-width mark that belongs to the previous cell
			b.WriteString(seq)
		case seq == "\n" || seq == "\r":
			b.WriteString(seq)
			col = 0
		case seq == "\t":
			stop := (col/8 + 1) * 8
			b.WriteString(strings.Repeat(" ", stop-col))
			col = stop
		case ansi.HasCsiPrefix(seq) && p.Command() == 'm':
			b.WriteString(seq)
		}
		state, frame = next, frame[n:]
	}
	return b.String()
}
