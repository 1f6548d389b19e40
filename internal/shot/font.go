package shot

import (
	"fmt"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/opentype"
)

// metrics is the pixel geometry of a cell, shared by the SVG and the PNG so
// both come out the same size.
type metrics struct {
	cellW, cellH int
	ascent       int // baseline, from the top of the cell
	capTop       int // top of capital letters, from the top of the cell
	xHeight      int
}

// faces holds Go Mono in its four styles at one size.
type faces struct {
	regular, bold, italic, boldItalic font.Face
	metrics
}

func loadFaces(size float64) (*faces, error) {
	f := new(faces)
	for _, v := range []struct {
		dst *font.Face
		ttf []byte
	}{
		{&f.regular, gomono.TTF},
		{&f.bold, gomonobold.TTF},
		{&f.italic, gomonoitalic.TTF},
		{&f.boldItalic, gomonobolditalic.TTF},
	} {
		ft, err := opentype.Parse(v.ttf)
		if err != nil {
			return nil, fmt.Errorf("parse Go Mono: %w", err)
		}
		face, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return nil, fmt.Errorf("the Go Mono face at %gpx: %w", size, err)
		}
		*v.dst = face
	}
	m := f.regular.Metrics()
	adv, _ := f.regular.GlyphAdvance('M')
	f.metrics = metrics{
		cellW:   adv.Ceil(),
		cellH:   m.Height.Ceil(),
		ascent:  m.Ascent.Ceil(),
		capTop:  m.Ascent.Ceil() - m.CapHeight.Round(),
		xHeight: m.XHeight.Round(),
	}
	return f, nil
}

// face picks the face for a style.
func (f *faces) face(bold, italic bool) font.Face {
	switch {
	case bold && italic:
		return f.boldItalic
	case bold:
		return f.bold
	case italic:
		return f.italic
	}
	return f.regular
}

func (f *faces) close() {
	for _, face := range []font.Face{f.regular, f.bold, f.italic, f.boldItalic} {
		face.Close()
	}
}

// measure returns the cell geometry for a font size, estimating it from Go
// Mono's proportions should the embedded font somehow fail to load.
func measure(size float64) metrics {
	f, err := loadFaces(size)
	if err != nil {
		return metrics{
			cellW:   int(math.Ceil(size * 0.6)),
			cellH:   int(math.Ceil(size * 1.2)),
			ascent:  int(math.Ceil(size)),
			capTop:  int(math.Ceil(size * 0.27)),
			xHeight: int(math.Round(size * 0.53)),
		}
	}
	defer f.close()
	return f.metrics
}
