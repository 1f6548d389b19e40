package shot

import "math"

// Box drawing, block elements and braille are drawn as shapes rather than
// taken from a font, so borders and bars join across cells without gaps
// whatever the line height.

// lightWidth is the thickness of a light box-drawing line in a cell w wide.
func lightWidth(w int) int { return max(1, (w+4)/8) }

// boxShapes draws box drawing and block elements (U+2500–U+259F) and braille
// (U+2800–U+28FF) in a w×h cell; ok is false for any other rune.
func boxShapes(r rune, w, h int) (shapes []shape, ok bool) {
	switch {
	case r >= 0x2500 && r <= 0x257f:
		return boxLine(r, w, h), true
	case r >= 0x2580 && r <= 0x259f:
		return []shape{block(r, float64(w), float64(h))}, true
	case r >= 0x2800 && r <= 0x28ff:
		return []shape{braille(r, float64(w), float64(h))}, true
	}
	return nil, false
}

// boxArms gives, for each rune from U+2500 to U+257F, the weight of its arms
// up, right, down and left: 0 none, 1 light, 2 heavy, 3 double. Dashes, arcs
// and diagonals ("....") are drawn separately.
const boxArms = "" +
	"0101020210102020................................0110021001200220" + // U+2500
	"0011001200210022110012002100220010011002200120021110121021101120" + // U+2510
	"2120221012202220101110122011102120212012102220220111011202110212" + // U+2520
	"0121012202210222110111021201120221012102220122021111111212111212" + // U+2530
	"211111212121211222111122122122121222212222212222................" + // U+2540
	"0303303003100130033000130031003313003100330010033001300313103130" + // U+2550
	"3330101330313033031301310333130331013303131331313333............" + // U+2560
	"................000110000100001000022000020000200201102001022010" //   U+2570

const (
	armUp = iota
	armRight
	armDown
	armLeft
)

func boxLine(r rune, w, h int) []shape {
	t := lightWidth(w)
	switch r {
	case 0x2504, 0x2505, 0x2508, 0x2509, 0x254c, 0x254d: // ┄ ┅ ┈ ┉ ╌ ╍
		return []shape{dashes(r, w, h, t, true)}
	case 0x2506, 0x2507, 0x250a, 0x250b, 0x254e, 0x254f: // ┆ ┇ ┊ ┋ ╎ ╏
		return []shape{dashes(r, w, h, t, false)}
	case 0x256d: // ╭
		return arc(w, h, t, 1, 1)
	case 0x256e: // ╮
		return arc(w, h, t, -1, 1)
	case 0x256f: // ╯
		return arc(w, h, t, -1, -1)
	case 0x2570: // ╰
		return arc(w, h, t, 1, -1)
	case 0x2571, 0x2572, 0x2573: // ╱ ╲ ╳
		fw, fh, ft := float64(w), float64(h), float64(t)*1.2
		var s shape
		s.alpha = 1
		if r != 0x2572 {
			s.paths = append(s.paths, stroke(point{fw, 0}, point{0, fh}, ft))
		}
		if r != 0x2571 {
			s.paths = append(s.paths, stroke(point{0, 0}, point{fw, fh}, ft))
		}
		return []shape{s}
	}
	i := int(r-0x2500) * 4
	var arms [4]int
	for k := range arms {
		arms[k] = int(boxArms[i+k] - '0')
	}
	return []shape{armShapes(arms, w, h, t)}
}

// band is the pixel span of a line t thick centred on c.
func band(c, t int) (lo, hi int) { return c - t/2, c - t/2 + t }

// armShapes draws the arms of a box-drawing character. Double lines sit d
// either side of the centre line; where arms meet, each line stops at the
// line it runs into, so corners and junctions come out like a terminal's.
func armShapes(arms [4]int, w, h, t int) shape {
	d := t
	thick := func(weight int) int {
		if weight == 2 {
			return 2 * t
		}
		return t
	}
	var s shape
	s.alpha = 1
	for a, weight := range arms {
		if weight == 0 {
			continue
		}
		horizontal := a == armRight || a == armLeft
		positive := a == armRight || a == armDown
		along, across, edge := w/2, h/2, w // centre along the arm, across it, far edge
		negSide, posSide := arms[armUp], arms[armDown]
		if !horizontal {
			along, across, edge = h/2, w/2, h
			negSide, posSide = arms[armLeft], arms[armRight]
		}
		opposite := arms[(a+2)%4]
		// inner returns where the arm stops near the centre: at the line k·d
		// from the centre (k = -1 far side, 0 centre, +1 near side) tk thick.
		inner := func(k, tk int) int {
			if positive {
				lo, _ := band(along+k*d, tk)
				return lo
			}
			_, hi := band(along-k*d, tk)
			return hi
		}
		segment := func(from, c, tk int) {
			lo, hi := band(c, tk)
			a0, a1 := from, edge
			if !positive {
				a0, a1 = 0, from
			}
			if horizontal {
				s.paths = append(s.paths, rect(float64(a0), float64(lo), float64(a1), float64(hi)))
			} else {
				s.paths = append(s.paths, rect(float64(lo), float64(a0), float64(hi), float64(a1)))
			}
		}
		single := func(side int) bool { return side == 1 || side == 2 }
		if weight != 3 {
			tk := thick(weight)
			var from int
			switch {
			case negSide != 3 && posSide != 3:
				tp := tk
				if negSide != 0 || posSide != 0 {
					tp = thick(max(negSide, posSide))
				}
				from = inner(0, tp)
			case opposite != 0:
				from = inner(-1, t)
			case negSide != 0 && posSide != 0:
				from = inner(1, t)
			default:
				from = inner(-1, t)
			}
			segment(from, across, tk)
			continue
		}
		for _, side := range []struct{ perp, off int }{{negSide, -d}, {posSide, d}} {
			var from int
			switch {
			case side.perp == 3:
				from = inner(1, t)
			case single(negSide) || single(posSide):
				from = inner(0, thick(max(negSide%3, posSide%3)))
			default:
				from = inner(-1, t)
			}
			segment(from, across+side.off, t)
		}
	}
	return s
}

// dashes draws the dashed lines: triple, quadruple or double dashes.
func dashes(r rune, w, h, t int, horizontal bool) shape {
	n := 3
	switch r {
	case 0x2508, 0x2509, 0x250a, 0x250b:
		n = 4
	case 0x254c, 0x254d, 0x254e, 0x254f:
		n = 2
	}
	if r%2 == 1 { // heavy
		t *= 2
	}
	length := float64(w)
	if !horizontal {
		length = float64(h)
	}
	seg := length / float64(n)
	var s shape
	s.alpha = 1
	for i := range n {
		a0, a1 := float64(i)*seg+seg*0.2, float64(i+1)*seg-seg*0.2
		if horizontal {
			lo, hi := band(h/2, t)
			s.paths = append(s.paths, rect(a0, float64(lo), a1, float64(hi)))
		} else {
			lo, hi := band(w/2, t)
			s.paths = append(s.paths, rect(float64(lo), a0, float64(hi), a1))
		}
	}
	return s
}

// arc draws a rounded corner whose straight ends leave towards sx
// (1 right, -1 left) and sy (1 down, -1 up).
func arc(w, h, t int, sx, sy float64) []shape {
	xlo, xhi := band(w/2, t)
	ylo, yhi := band(h/2, t)
	mx, my := float64(xlo+xhi)/2, float64(ylo+yhi)/2
	ft := float64(t)
	r := math.Floor(min(mx, float64(w)-mx, my, float64(h)-my))
	cx, cy := mx+sx*r, my+sy*r
	const n = 12
	outer, inner := make([]point, 0, n+1), make([]point, 0, n+1)
	for i := 0; i <= n; i++ {
		a := math.Pi / 2 * float64(i) / n
		c, s := math.Cos(a), math.Sin(a)
		outer = append(outer, point{cx - sx*(r+ft/2)*c, cy - sy*(r+ft/2)*s})
		inner = append(inner, point{cx - sx*(r-ft/2)*c, cy - sy*(r-ft/2)*s})
	}
	curve := append(outer, reversed(inner)...)

	edgeX, edgeY := float64(w), float64(h)
	if sx < 0 {
		edgeX = 0
	}
	if sy < 0 {
		edgeY = 0
	}
	straight := solid(
		rect(min(cx, edgeX), float64(ylo), max(cx, edgeX), float64(yhi)),
		rect(float64(xlo), min(cy, edgeY), float64(xhi), max(cy, edgeY)),
	)
	return []shape{solid(curve), straight}
}

// block draws the block elements U+2580–U+259F.
func block(r rune, w, h float64) shape {
	eighthH := func(k int) float64 { return math.Round(h * float64(k) / 8) }
	eighthW := func(k int) float64 { return math.Round(w * float64(k) / 8) }
	mw, mh := math.Round(w/2), math.Round(h/2)
	switch {
	case r == 0x2580: // ▀
		return solid(rect(0, 0, w, mh))
	case r <= 0x2588: // ▁ … █
		return solid(rect(0, h-eighthH(int(r-0x2580)), w, h))
	case r <= 0x258f: // ▉ … ▏
		return solid(rect(0, 0, eighthW(int(0x2590-r)), h))
	case r == 0x2590: // ▐
		return solid(rect(mw, 0, w, h))
	case r <= 0x2593: // ░ ▒ ▓
		return shape{paths: [][]point{rect(0, 0, w, h)}, alpha: float64(r-0x2590) / 4}
	case r == 0x2594: // ▔
		return solid(rect(0, 0, w, eighthH(1)))
	case r == 0x2595: // ▕
		return solid(rect(w-eighthW(1), 0, w, h))
	}
	// Quadrants ▖ … ▟ as bits: 1 upper left, 2 upper right, 4 lower left, 8 lower right.
	quads := [...]int{4, 8, 1, 13, 9, 7, 11, 2, 6, 14}[r-0x2596]
	var s shape
	s.alpha = 1
	for bit, q := range [][]point{rect(0, 0, mw, mh), rect(mw, 0, w, mh), rect(0, mh, mw, h), rect(mw, mh, w, h)} {
		if quads&(1<<bit) != 0 {
			s.paths = append(s.paths, q)
		}
	}
	return s
}

// braille draws the dots of U+2800–U+28FF.
func braille(r rune, w, h float64) shape {
	dots := [8]struct{ col, row float64 }{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}}
	rad := min(w/4, h/8) * 0.7
	var s shape
	s.alpha = 1
	for bit, d := range dots {
		if int(r-0x2800)&(1<<bit) != 0 {
			s.paths = append(s.paths, circle(w*(1+2*d.col)/4, h*(1+2*d.row)/8, rad))
		}
	}
	return s
}
