package shot

import (
	"image/color"

	"github.com/charmbracelet/x/ansi"
)

// xterm16 is xterm's default palette for the 16 basic colours.
var xterm16 = [16]color.RGBA{
	{0x00, 0x00, 0x00, 0xff}, {0xcd, 0x00, 0x00, 0xff}, {0x00, 0xcd, 0x00, 0xff}, {0xcd, 0xcd, 0x00, 0xff},
	{0x00, 0x00, 0xee, 0xff}, {0xcd, 0x00, 0xcd, 0xff}, {0x00, 0xcd, 0xcd, 0xff}, {0xe5, 0xe5, 0xe5, 0xff},
	{0x7f, 0x7f, 0x7f, 0xff}, {0xff, 0x00, 0x00, 0xff}, {0x00, 0xff, 0x00, 0xff}, {0xff, 0xff, 0x00, 0xff},
	{0x5c, 0x5c, 0xff, 0xff}, {0xff, 0x00, 0xff, 0xff}, {0x00, 0xff, 0xff, 0xff}, {0xff, 0xff, 0xff, 0xff},
}

// Palette returns xterm's colour for index i of the 256-colour palette:
// 0–15 the basic colours, 16–231 the 6×6×6 cube, 232–255 the grey ramp.
func Palette(i uint8) color.RGBA {
	switch {
	case i < 16:
		return xterm16[i]
	case i < 232:
		i -= 16
		return color.RGBA{cubeLevel(i / 36), cubeLevel(i / 6 % 6), cubeLevel(i % 6), 0xff}
	default:
		g := 8 + 10*(i-232)
		return color.RGBA{g, g, g, 0xff}
	}
}

func cubeLevel(v uint8) uint8 {
	if v == 0 {
		return 0
	}
	return 55 + 40*v
}

// resolve turns a colour read from an SGR sequence into the RGBA a terminal
// with the xterm palette would show. It returns nil for the terminal default
// (no colour, or a transparent one).
func resolve(c color.Color) color.Color {
	switch c := c.(type) {
	case nil:
		return nil
	case ansi.BasicColor:
		return Palette(uint8(c))
	case ansi.IndexedColor:
		return Palette(uint8(c))
	}
	r, g, b, a := c.RGBA()
	if a == 0 {
		return nil
	}
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}

// rgba converts any colour to opaque RGBA.
func rgba(c color.Color) color.RGBA {
	if c, ok := c.(color.RGBA); ok {
		return c
	}
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}

// mix returns a blended toward b by t (0 = a, 1 = b).
func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 0xff}
}

// luminance is the perceived brightness of c in [0, 1].
func luminance(c color.RGBA) float64 {
	return (0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)) / 255
}
