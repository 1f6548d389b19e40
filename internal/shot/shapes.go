package shot

import "math"

// Shapes are how everything not taken from a font is drawn — box drawing,
// blocks, a few symbols, the window frame — once, for both the SVG (as paths)
// and the PNG (rasterised).

type point struct{ x, y float64 }

// shape is a set of closed polygons filled together with the non-zero rule;
// a polygon wound against the others cuts a hole. alpha scales the
// foreground's coverage (1 except for the shade blocks).
type shape struct {
	paths [][]point
	alpha float64
}

func solid(paths ...[]point) shape { return shape{paths: paths, alpha: 1} }

// rect is the rectangle [x0,x1]×[y0,y1], wound clockwise on screen.
func rect(x0, y0, x1, y1 float64) []point {
	return []point{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

// stroke is the segment p→q drawn t thick. Every stroke winds the same way,
// so strokes in one shape merge.
func stroke(p, q point, t float64) []point {
	dx, dy := q.x-p.x, q.y-p.y
	l := math.Hypot(dx, dy)
	nx, ny := -dy/l*t/2, dx/l*t/2
	return []point{{p.x + nx, p.y + ny}, {q.x + nx, q.y + ny}, {q.x - nx, q.y - ny}, {p.x - nx, p.y - ny}}
}

// polyline strokes consecutive points, given as fractions of the w×h box.
func polyline(w, h, t float64, pts ...point) shape {
	var s shape
	s.alpha = 1
	for i := 1; i < len(pts); i++ {
		p := point{pts[i-1].x * w, pts[i-1].y * h}
		q := point{pts[i].x * w, pts[i].y * h}
		s.paths = append(s.paths, stroke(p, q, t))
	}
	return s
}

// polygon scales points given as fractions of the w×h box.
func polygon(w, h float64, pts ...point) []point {
	out := make([]point, len(pts))
	for i, p := range pts {
		out[i] = point{p.x * w, p.y * h}
	}
	return out
}

// reversed winds a polygon the other way, to punch it out of a shape.
func reversed(p []point) []point {
	out := make([]point, len(p))
	for i := range p {
		out[len(p)-1-i] = p[i]
	}
	return out
}

// shrunk scales a polygon by f about its centroid.
func shrunk(p []point, f float64) []point {
	var c point
	for _, q := range p {
		c.x, c.y = c.x+q.x/float64(len(p)), c.y+q.y/float64(len(p))
	}
	out := make([]point, len(p))
	for i, q := range p {
		out[i] = point{c.x + (q.x-c.x)*f, c.y + (q.y-c.y)*f}
	}
	return out
}

func circle(cx, cy, r float64) []point {
	const n = 16
	out := make([]point, n)
	for i := range out {
		a := 2 * math.Pi * float64(i) / n
		out[i] = point{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	return out
}

func pick(cond bool, a, b float64) float64 {
	if cond {
		return a
	}
	return b
}

// roundedRect is a rectangle whose top corners have radius rt and bottom
// corners radius rb.
func roundedRect(x0, y0, x1, y1, rt, rb float64) []point {
	var p []point
	corner := func(cx, cy, r, from float64) {
		if r <= 0 {
			p = append(p, point{cx, cy})
			return
		}
		const n = 8
		for i := 0; i <= n; i++ {
			a := from + math.Pi/2*float64(i)/n
			p = append(p, point{cx + r*math.Cos(a), cy + r*math.Sin(a)})
		}
	}
	corner(x0+rt, y0+rt, rt, math.Pi)
	corner(x1-rt, y0+rt, rt, 3*math.Pi/2)
	corner(x1-rb, y1-rb, rb, 0)
	corner(x0+rb, y1-rb, rb, math.Pi/2)
	return p
}
