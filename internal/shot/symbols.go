package shot

import "math"

// symbolShape draws one of a few symbols common in TUIs that Go Mono lacks,
// in a cell w wide whose capitals span capTop to baseline. The PNG uses it;
// browsers have fonts for these. ok is false for any other rune.
func symbolShape(r rune, w, capTop, baseline int) (s shape, ok bool) {
	fw := float64(w)
	top, bot := float64(capTop), float64(baseline)
	// Work in a square centred on the capitals.
	size := min(fw, bot-top)
	ox, oy := (fw-size)/2, (top+bot-size)/2
	box := func(s shape) shape {
		for _, p := range s.paths {
			for i := range p {
				p[i].x, p[i].y = ox+p[i].x, oy+p[i].y
			}
		}
		return s
	}
	tri := func(scale float64, pts ...point) []point {
		for i := range pts {
			pts[i] = point{0.5 + (pts[i].x-0.5)*scale, 0.5 + (pts[i].y-0.5)*scale}
		}
		return polygon(size, size, pts...)
	}
	up := func(s float64) []point { return tri(s, point{0.5, 0.1}, point{0.95, 0.9}, point{0.05, 0.9}) }
	down := func(s float64) []point { return tri(s, point{0.05, 0.1}, point{0.95, 0.1}, point{0.5, 0.9}) }
	right := func(s float64) []point { return tri(s, point{0.1, 0.05}, point{0.9, 0.5}, point{0.1, 0.95}) }
	left := func(s float64) []point { return tri(s, point{0.9, 0.05}, point{0.9, 0.95}, point{0.1, 0.5}) }
	diamond := func() []point { return tri(1, point{0.5, 0}, point{1, 0.5}, point{0.5, 1}, point{0, 0.5}) }
	ring := func(p []point) shape { return solid(p, reversed(shrunk(p, 0.45))) }
	line := float64(lightWidth(w))
	switch r {
	case '▲', '▴':
		return box(solid(up(pick(r == '▲', 1, 0.6)))), true
	case '▼', '▾':
		return box(solid(down(pick(r == '▼', 1, 0.6)))), true
	case '▶', '▸', '►':
		return box(solid(right(pick(r == '▸', 0.6, 1)))), true
	case '◀', '◂', '◄':
		return box(solid(left(pick(r == '◂', 0.6, 1)))), true
	case '△':
		return box(ring(up(1))), true
	case '▽':
		return box(ring(down(1))), true
	case '▷':
		return box(ring(right(1))), true
	case '◁':
		return box(ring(left(1))), true
	case '◆':
		return box(solid(diamond())), true
	case '◇':
		return box(ring(diamond())), true
	case '✓', '✔':
		t := pick(r == '✓', 1.4, 2.2) * line
		return box(polyline(size, size, t, point{0.1, 0.55}, point{0.4, 0.85}, point{0.95, 0.15})), true
	case '✗', '✘':
		t := pick(r == '✗', 1.4, 2.2) * line
		s := polyline(size, size, t, point{0.15, 0.15}, point{0.85, 0.85})
		s.paths = append(s.paths, polyline(size, size, t, point{0.85, 0.15}, point{0.15, 0.85}).paths...)
		return box(s), true
	case '❯', '❮':
		a, b := 0.25, 0.75
		if r == '❮' {
			a, b = b, a
		}
		return box(polyline(size, size, 2*line, point{a, 0.1}, point{b, 0.5}, point{a, 0.9})), true
	case '↷':
		// A clockwise arc over the top, its head pointing down at the
		// right.
		var arc []point
		for i := range 9 {
			a := math.Pi * float64(8-i) / 8
			arc = append(arc, point{0.5 + 0.36*math.Cos(a), 0.7 - 0.42*math.Sin(a)})
		}
		s := polyline(size, size, 1.4*line, arc...)
		end := arc[len(arc)-1]
		s.paths = append(s.paths, polyline(size, size, 1.4*line, point{end.x - 0.2, end.y - 0.12}, end, point{end.x + 0.1, end.y - 0.2}).paths...)
		return box(s), true
	case '⋯':
		var s shape
		s.alpha = 1
		for i := range 3 {
			s.paths = append(s.paths, circle(size*(1+2*float64(i))/6, size/2, max(0.8, size/12)))
		}
		return box(s), true
	case '★', '☆':
		star := make([]point, 10)
		for i := range star {
			rad := 0.5
			if i%2 == 1 {
				rad = 0.2
			}
			a := -math.Pi/2 + math.Pi*float64(i)/5
			star[i] = point{size * (0.5 + rad*math.Cos(a)), size * (0.55 + rad*math.Sin(a))}
		}
		if r == '☆' {
			return box(ring(star)), true
		}
		return box(solid(star)), true
	}
	return shape{}, false
}
