// Package shot turns a rendered terminal frame — text with ANSI SGR escape
// sequences, the final View of a screen — into SVG and PNG screenshots, so the
// README's images come from the real program.
package shot

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
)

// Options controls how a grid is drawn. The zero value draws a dark terminal
// at 14px without a window frame.
type Options struct {
	// Background and Foreground are the terminal's default colours, used for
	// cells without their own. A nil Background is dark; a nil Foreground
	// contrasts with the background.
	Background, Foreground color.Color
	// FontSize is the font size in pixels; 0 means 14.
	FontSize float64
	// Title, when not empty, draws a window frame around the screen: rounded
	// corners and a title bar with three dots and the title.
	Title string
}

// Dark returns options for a dark terminal.
func Dark() Options {
	return Options{Background: color.RGBA{0x1e, 0x1e, 0x1e, 0xff}, Foreground: color.RGBA{0xd4, 0xd4, 0xd4, 0xff}}
}

// Light returns options for a light terminal.
func Light() Options {
	return Options{Background: color.RGBA{0xff, 0xff, 0xff, 0xff}, Foreground: color.RGBA{0x1f, 0x23, 0x28, 0xff}}
}

func (o Options) withDefaults() Options {
	if o.Background == nil {
		o.Background = Dark().Background
	}
	if o.Foreground == nil {
		o.Foreground = Dark().Foreground
		if luminance(rgba(o.Background)) > 0.5 {
			o.Foreground = Light().Foreground
		}
	}
	if o.FontSize <= 0 {
		o.FontSize = 14
	}
	return o
}

// CellSize is the size in pixels of one cell in both the SVG and the PNG.
func (o Options) CellSize() (w, h int) {
	m := measure(o.withDefaults().FontSize)
	return m.cellW, m.cellH
}

// WriteFiles parses frame into a width × height grid (0 for either: fit the
// frame) and writes dir/name.svg and dir/name.png, creating dir if needed.
func WriteFiles(dir, name string, frame string, width, height int, opts Options) error {
	g := Parse(frame, width, height)
	img, err := g.PNG(opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("screenshot dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".svg"), g.SVG(opts), 0o644); err != nil {
		return fmt.Errorf("write screenshot: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), img, 0o644); err != nil {
		return fmt.Errorf("write screenshot: %w", err)
	}
	return nil
}

// colours returns how a cell is painted: its foreground and background after
// the defaults and reverse video, and whether the background differs from the
// terminal's.
func (c Cell) colours(o Options) (fg, bg color.RGBA, ownBg bool) {
	fg, bg = rgba(o.Foreground), rgba(o.Background)
	if c.Fg != nil {
		fg = rgba(c.Fg)
	}
	if c.Bg != nil {
		bg = rgba(c.Bg)
	}
	if c.Reverse {
		return bg, fg, true
	}
	return fg, bg, c.Bg != nil
}
