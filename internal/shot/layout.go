package shot

import (
	"image/color"
	"math"
)

// layout places the grid in the image: where cell (0, 0) starts and how big
// the whole picture is, frame included.
type layout struct {
	metrics
	x0, y0 int // top-left pixel of cell (0, 0)
	w, h   int // image size
	framed bool
	pad    int // space around the cells inside the frame
	bar    int // title bar height
	radius float64
}

func newLayout(g *Grid, o Options, m metrics) layout {
	l := layout{metrics: m}
	l.w, l.h = g.Width*l.cellW, g.Height*l.cellH
	if o.Title == "" {
		return l
	}
	l.framed = true
	l.pad = int(math.Round(o.FontSize))
	l.bar = l.cellH + l.pad
	l.radius = math.Round(o.FontSize * 0.6)
	l.x0, l.y0 = l.pad, l.bar
	l.w += 2 * l.pad
	l.h += l.bar + l.pad
	return l
}

// paint is a shape in one colour, in image coordinates.
type paint struct {
	shape
	colour color.RGBA
}

// chrome is the window frame: a rounded outline, the title bar, the
// screen below it and the three dots. The title text is drawn by the caller
// at titleAt.
func (l layout) chrome(o Options) []paint {
	fg, bg := rgba(o.Foreground), rgba(o.Background)
	w, h, r := float64(l.w), float64(l.h), l.radius
	bar := float64(l.bar)
	dotR := math.Max(3, float64(l.cellH)/4)
	dots := []color.RGBA{{0xff, 0x5f, 0x57, 0xff}, {0xfe, 0xbc, 0x2e, 0xff}, {0x28, 0xc8, 0x40, 0xff}}
	out := []paint{
		{solid(roundedRect(0, 0, w, h, r, r)), mix(bg, fg, 0.2)},
		{solid(roundedRect(1, 1, w-1, h-1, r-1, r-1)), mix(bg, fg, 0.07)},
		{solid(roundedRect(1, bar, w-1, h-1, 0, r-1)), bg},
		{solid(rect(1, bar-1, w-1, bar)), mix(bg, fg, 0.15)},
	}
	for i, c := range dots {
		cx := float64(l.pad) + dotR + float64(i)*dotR*3.2
		out = append(out, paint{solid(circle(cx, bar/2, dotR)), c})
	}
	return out
}

// titleAt is where the title's baseline starts, centred in the bar, for a
// title n cells wide.
func (l layout) titleAt(n int) (x, y int) {
	return (l.w - n*l.cellW) / 2, (l.bar-l.cellH)/2 + l.ascent
}
