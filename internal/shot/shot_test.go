package shot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

func TestParseReadsALipglossBox(t *testing.T) {
	title := lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#ff8800")).Render("Hi")
	frame := lipgloss.NewStyle().
		Border(lipgloss.RoundedBorder()).
		BorderForeground(lipgloss.Color("63")).
		Render(title + " 界")

	g := Parse(frame, 0, 0)

	if g.Width != 7 || g.Height != 3 {
		t.Fatalf("grid is %d×%d, want 7×3", g.Width, g.Height)
	}
	corner := g.At(0, 0)
	if corner.Content != "╭" || corner.Fg != Palette(63) || corner.Bold {
		t.Errorf("corner = %+v, want ╭ in palette colour 63, not bold", corner)
	}
	h := g.At(1, 1)
	if h.Content != "H" || h.Fg != (color.RGBA{0xff, 0x88, 0x00, 0xff}) || !h.Bold {
		t.Errorf("title cell = %+v, want bold H in #ff8800", h)
	}
	if space := g.At(3, 1); space.Bold || space.Fg != nil {
		t.Errorf("space after the title = %+v, want default style", space)
	}
	wide, spill := g.At(4, 1), g.At(5, 1)
	if wide.Content != "界" || wide.Width != 2 || spill.Width != 0 {
		t.Errorf("wide cell = %+v then %+v, want 界 two columns wide", wide, spill)
	}
	if right := g.At(6, 1); right.Content != "│" {
		t.Errorf("right border = %q, want │ after the wide character", right.Content)
	}
}

func TestParseResolvesEveryColourKind(t *testing.T) {
	frame := "\x1b[31ma\x1b[38;5;196mb\x1b[38;2;1;2;3mc\x1b[0;7;2;3;4;9md"
	g := Parse(frame, 4, 1)

	want := []color.Color{Palette(1), Palette(196), color.RGBA{1, 2, 3, 0xff}}
	for x, w := range want {
		if got := g.At(x, 0).Fg; got != w {
			t.Errorf("cell %d fg = %v, want %v", x, got, w)
		}
	}
	if Palette(1) != (color.RGBA{0xcd, 0, 0, 0xff}) || Palette(196) != (color.RGBA{0xff, 0, 0, 0xff}) || Palette(244) != (color.RGBA{0x80, 0x80, 0x80, 0xff}) {
		t.Errorf("palette does not match xterm's")
	}
	d := g.At(3, 0)
	if d.Fg != nil || !d.Reverse || !d.Faint || !d.Italic || !d.Underline || !d.Strike {
		t.Errorf("last cell = %+v, want default colour, reverse, faint, italic, underline, strike", d)
	}
}

func TestParseIgnoresOtherEscapesAndExpandsTabs(t *testing.T) {
	frame := "\x1b[2J\x1b[Ha\tb\r\n\x1b]0;title\x07c\x1b[?25l"
	g := Parse(frame, 10, 0)

	if g.Height != 2 {
		t.Fatalf("height = %d, want 2", g.Height)
	}
	if g.At(0, 0).Content != "a" || g.At(8, 0).Content != "b" || g.At(0, 1).Content != "c" {
		t.Errorf("rows = %q / %q", row(g, 0), row(g, 1))
	}
	for x := 1; x < g.Width; x++ {
		if c := g.At(x, 1); c.Content != " " || c.Width != 1 {
			t.Errorf("cell (%d,1) = %+v, want blank", x, c)
		}
	}
}

func TestParseCutsLinesToTheGivenSize(t *testing.T) {
	g := Parse("abcdef\n12\nxyz", 4, 2)
	if row(g, 0) != "abcd" || row(g, 1) != "12  " || len(g.Cells) != 8 {
		t.Errorf("rows = %q / %q, want abcd / 12", row(g, 0), row(g, 1))
	}
}

func TestSVGIsWellFormedAndEscapesText(t *testing.T) {
	frame := "\x1b[1;32m<&>\x1b[0m plain\n\x1b[44m╭──╮\x1b[0m 界"
	for _, opts := range []Options{{}, {Title: `a "quoted" <title>`}} {
		svg := Parse(frame, 0, 0).SVG(opts)

		dec := xml.NewDecoder(bytes.NewReader(svg))
		var text strings.Builder
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg)
			}
			if cd, ok := tok.(xml.CharData); ok {
				text.Write(cd)
			}
		}
		for _, want := range []string{"<&>", "plain", "界"} {
			if !strings.Contains(text.String(), want) {
				t.Errorf("SVG text lacks %q:\n%s", want, svg)
			}
		}
		if !bytes.Contains(svg, []byte("&lt;&amp;&gt;")) || !bytes.Contains(svg, []byte(`font-weight="bold"`)) {
			t.Errorf("SVG does not escape or embolden <&>:\n%s", svg)
		}
	}
}

func TestPNGIsCellsTimesCellSize(t *testing.T) {
	frame := "ab\x1b[48;2;10;200;30mcd\x1b[0m\n╭─╮▒⣿✓界"
	g := Parse(frame, 0, 0)
	img := decodePNG(t, g, Options{})
	cw, ch := Options{}.CellSize()

	if got, want := img.Bounds().Size(), image.Pt(g.Width*cw, g.Height*ch); got != want {
		t.Fatalf("PNG is %v, want %v (%d×%d cells of %d×%d)", got, want, g.Width, g.Height, cw, ch)
	}
	if got := rgbaAt(img, 2*cw+1, 1); got != (color.RGBA{10, 200, 30, 0xff}) {
		t.Errorf("pixel in the green cell = %v", got)
	}
	if got := rgbaAt(img, 1, 1); got != Dark().Background {
		t.Errorf("pixel in a plain cell = %v, want the default background", got)
	}
}

func TestPNGBordersJoinAcrossCells(t *testing.T) {
	fg := color.RGBA{0xff, 0xff, 0xff, 0xff}
	opts := Options{Background: color.RGBA{0, 0, 0, 0xff}, Foreground: fg}
	g := Parse("┌─\n│ ", 0, 0)
	img := decodePNG(t, g, opts)
	cw, ch := opts.CellSize()

	// The vertical line crosses the row boundary and the horizontal one the
	// column boundary without a gap.
	x, y := cw/2, ch/2
	for _, p := range []image.Point{{x, ch - 1}, {x, ch}, {cw - 1, y}, {cw, y}, {x, y}} {
		if got := rgbaAt(img, p.X, p.Y); got != fg {
			t.Errorf("pixel %v = %v, want the line colour", p, got)
		}
	}
}

func TestPNGTitleAddsAWindowFrame(t *testing.T) {
	g := Parse("hello", 0, 0)
	img := decodePNG(t, g, Options{Title: "arbiter"})
	cw, ch := Options{}.CellSize()
	if size := img.Bounds().Size(); size.X <= g.Width*cw || size.Y <= g.Height*ch {
		t.Errorf("framed PNG is %v, want larger than the bare %d×%d", size, g.Width*cw, g.Height*ch)
	}
	if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
		t.Errorf("rounded corner pixel has alpha %d, want transparent", a)
	}
}

func TestWriteFilesWritesSVGAndPNG(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "screenshots")
	if err := WriteFiles(dir, "queue", "\x1b[1mqueue\x1b[0m", 20, 2, Light()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"queue.svg", "queue.png"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func ExampleParse() {
	g := Parse("\x1b[1;38;5;63mok\x1b[0m 界", 0, 0)
	c := g.At(0, 0)
	fmt.Println(g.Width, g.Height, c.Content, c.Bold, c.Fg, g.At(3, 0).Width)
	// Output: 5 1 o true {95 95 255 255} 2
}

func row(g *Grid, y int) string {
	var b strings.Builder
	for x := range g.Width {
		b.WriteString(g.At(x, y).Content)
	}
	return b.String()
}

func decodePNG(t *testing.T, g *Grid, opts Options) image.Image {
	t.Helper()
	data, err := g.PNG(opts)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	return img
}

func rgbaAt(img image.Image, x, y int) color.Color {
	r, g, b, a := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}
