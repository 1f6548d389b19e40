package shot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// PNG rasterises the grid with Go Mono (regular, bold, italic, bold italic)
// at opts.FontSize pixels. Without a title the image is exactly
// Width·cellW × Height·cellH pixels (see Options.CellSize). Box drawing,
// block elements and braille are drawn procedurally; a few symbols Go Mono
// lacks too; any other glyph it lacks (CJK, emoji) becomes an outlined box.
func (g *Grid) PNG(opts Options) ([]byte, error) {
	o := opts.withDefaults()
	f, err := loadFaces(o.FontSize)
	if err != nil {
		return nil, err
	}
	defer f.close()
	l := newLayout(g, o, f.metrics)
	img := image.NewRGBA(image.Rect(0, 0, l.w, l.h))

	if l.framed {
		for _, p := range l.chrome(o) {
			fill(img, p.shape, image.Rect(0, 0, l.w, l.h), p.colour)
		}
		x, y := l.titleAt(ansi.StringWidth(o.Title))
		d := font.Drawer{Dst: img, Src: image.NewUniform(mix(rgba(o.Foreground), rgba(o.Background), 0.35)), Face: f.regular, Dot: fixed.P(x, y)}
		d.DrawString(o.Title)
	} else {
		draw.Draw(img, img.Bounds(), image.NewUniform(rgba(o.Background)), image.Point{}, draw.Src)
	}

	// Backgrounds first, so glyphs leaning out of their cell stay visible.
	for y := range g.Height {
		for x := range g.Width {
			c := g.At(x, y)
			if _, bg, own := c.colours(o); own && c.Width > 0 {
				draw.Draw(img, l.cell(x, y, c.Width), image.NewUniform(bg), image.Point{}, draw.Src)
			}
		}
	}
	for y := range g.Height {
		for x := range g.Width {
			if c := g.At(x, y); c.Width > 0 {
				drawCell(img, f, l, l.cell(x, y, c.Width), c, o)
			}
		}
	}

	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode screenshot: %w", err)
	}
	return buf.Bytes(), nil
}

// cell is the pixel rectangle of the cell at (x, y), width cells wide.
func (l layout) cell(x, y, width int) image.Rectangle {
	min := image.Pt(l.x0+x*l.cellW, l.y0+y*l.cellH)
	return image.Rectangle{Min: min, Max: min.Add(image.Pt(width*l.cellW, l.cellH))}
}

func drawCell(img *image.RGBA, f *faces, l layout, r image.Rectangle, c Cell, o Options) {
	fg, bg, _ := c.colours(o)
	if c.Faint {
		fg = mix(fg, bg, 0.5)
	}
	w, h := r.Dx(), r.Dy()
	line := lightWidth(l.cellW)
	if c.Underline {
		y := r.Min.Y + l.ascent + 1
		draw.Draw(img, image.Rect(r.Min.X, y, r.Max.X, y+line), image.NewUniform(fg), image.Point{}, draw.Over)
	}
	if c.Strike {
		y := r.Min.Y + l.ascent - l.xHeight/2
		draw.Draw(img, image.Rect(r.Min.X, y, r.Max.X, y+line), image.NewUniform(fg), image.Point{}, draw.Over)
	}
	first, _ := utf8.DecodeRuneInString(c.Content)
	if first == ' ' && len(c.Content) == 1 {
		return
	}
	face := f.face(c.Bold, c.Italic)
	if shapes, ok := boxShapes(first, w, h); ok {
		for _, s := range shapes {
			fill(img, s, r, fg)
		}
		return
	}
	if adv, ok := face.GlyphAdvance(first); ok {
		// Centre the glyph in its cells; combining marks stack on it.
		x := r.Min.X + (w-adv.Round())/2
		for i, ru := range c.Content {
			if i > 0 && !unicode.Is(unicode.Mn, ru) {
				continue
			}
			if _, ok := face.GlyphAdvance(ru); !ok {
				continue
			}
			d := font.Drawer{Dst: img, Src: image.NewUniform(fg), Face: face, Dot: fixed.P(x, r.Min.Y+l.ascent)}
			d.DrawString(string(ru))
		}
		return
	}
	if s, ok := symbolShape(first, w, l.capTop, l.ascent); ok {
		fill(img, s, r, fg)
		return
	}
	// A glyph Go Mono lacks: an outlined box, like a terminal's missing glyph.
	top, bottom := float64(l.capTop), float64(l.ascent)
	box := solid(rect(1, top, float64(w-1), bottom), reversed(rect(2, top+1, float64(w-2), bottom-1)))
	fill(img, box, r, mix(fg, bg, 0.3))
}

// fill paints a shape whose coordinates are relative to r.Min, clipped to r.
func fill(dst *image.RGBA, s shape, r image.Rectangle, c color.RGBA) {
	clip := r.Intersect(dst.Bounds())
	if clip.Empty() {
		return
	}
	dx, dy := float32(r.Min.X-clip.Min.X), float32(r.Min.Y-clip.Min.Y)
	z := vector.NewRasterizer(clip.Dx(), clip.Dy())
	for _, p := range s.paths {
		z.MoveTo(float32(p[0].x)+dx, float32(p[0].y)+dy)
		for _, q := range p[1:] {
			z.LineTo(float32(q.x)+dx, float32(q.y)+dy)
		}
		z.ClosePath()
	}
	r = clip
	a := uint8(255*s.alpha + 0.5)
	z.Draw(dst, r, image.NewUniform(color.NRGBA{c.R, c.G, c.B, a}), image.Point{})
}
