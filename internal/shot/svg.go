package shot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// fontFamily prefers Go Mono, which the PNG uses, then common monospace
// fonts; textLength keeps columns aligned whichever one the viewer has.
const fontFamily = `'Go Mono',ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace`

// SVG draws the grid as an SVG document the same pixel size as the PNG:
// background rectangles, one <text> per run of cells sharing a style, and
// box drawing, block elements and braille as paths so borders join.
func (g *Grid) SVG(opts Options) []byte {
	o := opts.withDefaults()
	l := newLayout(g, o, measure(o.FontSize))
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" xml:space="preserve">`+"\n",
		l.w, l.h, l.w, l.h)
	fmt.Fprintf(&b, "<style>text{font-family:%s;font-size:%spx;white-space:pre}</style>\n", fontFamily, num(o.FontSize))
	if l.framed {
		for _, p := range l.chrome(o) {
			writePath(&b, p.shape, 0, 0, p.colour)
		}
		x, y := l.titleAt(ansi.StringWidth(o.Title))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">`, x, y, hex(mix(rgba(o.Foreground), rgba(o.Background), 0.35)))
		escape(&b, o.Title)
		b.WriteString("</text>\n")
	} else {
		fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="%s"/>`+"\n", l.w, l.h, hex(rgba(o.Background)))
	}
	for y := range g.Height {
		svgBackgrounds(&b, g, l, o, y)
	}
	for y := range g.Height {
		svgText(&b, g, l, o, y)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// svgBackgrounds writes one rectangle per run of cells in row y sharing a
// background other than the terminal's.
func svgBackgrounds(b *bytes.Buffer, g *Grid, l layout, o Options, y int) {
	for x := 0; x < g.Width; {
		_, bg, own := g.At(x, y).colours(o)
		end := x + 1
		for end < g.Width {
			_, bg2, own2 := g.At(end, y).colours(o)
			if own2 != own || bg2 != bg {
				break
			}
			end++
		}
		if own {
			r := l.cell(x, y, end-x)
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", r.Min.X, r.Min.Y, r.Dx(), r.Dy(), hex(bg))
		}
		x = end
	}
}

// look is what a run of text shares.
type look struct {
	fg                                     color.RGBA
	bold, italic, underline, strike, faint bool
}

func (c Cell) look(o Options) look {
	fg, _, _ := c.colours(o)
	return look{fg, c.Bold, c.Italic, c.Underline, c.Strike, c.Faint}
}

// svgText writes row y's text: runs of plain cells sharing a look, and
// any other cell on its own. Box drawing becomes paths.
func svgText(b *bytes.Buffer, g *Grid, l layout, o Options, y int) {
	for x := 0; x < g.Width; {
		c := g.At(x, y)
		first, _ := utf8.DecodeRuneInString(c.Content)
		if c.Width == 0 {
			x++
			continue
		}
		if shapes, ok := boxShapes(first, l.cellW*c.Width, l.cellH); ok {
			r := l.cell(x, y, c.Width)
			lk := c.look(o)
			for _, s := range shapes {
				if lk.faint {
					s.alpha /= 2
				}
				writePath(b, s, r.Min.X, r.Min.Y, lk.fg)
			}
			x += c.Width
			continue
		}
		lk := c.look(o)
		end := x + 1
		if plain(c) {
			for end < g.Width && plain(g.At(end, y)) && g.At(end, y).look(o) == lk {
				end++
			}
		}
		var text strings.Builder
		for i := x; i < end; i++ {
			text.WriteString(g.At(i, y).Content)
		}
		writeText(b, l, x, y, end-x, text.String(), lk)
		x = end
	}
}

// plain reports whether a cell can share a <text> with its neighbours: one
// narrow rune that any monospace font has. Symbols, CJK and emoji often come
// from fallback fonts of other widths, so they are placed one by one.
func plain(c Cell) bool {
	r, size := utf8.DecodeRuneInString(c.Content)
	return c.Width == 1 && size == len(c.Content) && r < 0x2000
}

func writeText(b *bytes.Buffer, l layout, x, y, cells int, text string, lk look) {
	decorated := lk.underline || lk.strike
	if !decorated {
		// Spaces draw nothing; trimming them keeps textLength honest.
		trimmed := strings.TrimLeft(text, " ")
		x += len(text) - len(trimmed)
		cells -= len(text) - len(trimmed)
		text = strings.TrimRight(trimmed, " ")
		cells -= len(trimmed) - len(text)
		if text == "" {
			return
		}
	}
	r := l.cell(x, y, cells)
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="%s"`, r.Min.X, r.Min.Y+l.ascent, hex(lk.fg))
	if cells > 1 {
		fmt.Fprintf(b, ` textLength="%d"`, r.Dx())
	}
	if lk.bold {
		b.WriteString(` font-weight="bold"`)
	}
	if lk.italic {
		b.WriteString(` font-style="italic"`)
	}
	if lk.faint {
		b.WriteString(` opacity="0.5"`)
	}
	var deco []string
	if lk.underline {
		deco = append(deco, "underline")
	}
	if lk.strike {
		deco = append(deco, "line-through")
	}
	if len(deco) > 0 {
		fmt.Fprintf(b, ` text-decoration="%s"`, strings.Join(deco, " "))
	}
	b.WriteString(">")
	escape(b, text)
	b.WriteString("</text>\n")
}

// writePath writes a shape, offset by (dx, dy), as one path.
func writePath(b *bytes.Buffer, s shape, dx, dy int, c color.RGBA) {
	b.WriteString(`<path d="`)
	for _, p := range s.paths {
		for i, q := range p {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(b, "%s%s %s", cmd, num(q.x+float64(dx)), num(q.y+float64(dy)))
		}
		b.WriteString("Z")
	}
	fmt.Fprintf(b, `" fill="%s"`, hex(c))
	if s.alpha < 1 {
		fmt.Fprintf(b, ` fill-opacity="%s"`, num(s.alpha))
	}
	b.WriteString("/>\n")
}

func escape(b *bytes.Buffer, s string) {
	_ = xml.EscapeText(b, []byte(s)) // writing to a bytes.Buffer cannot fail
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func num(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }
