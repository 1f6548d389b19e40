package threeway

import "strings"

// Span is a piece of one version's text and how it changed. In the
// base's pane a span carries the change made to it; in A's and B's, a
// span the side kept as the base had it is Unchanged, even where the
// other side changed that stretch.
type Span struct {
	Text   string
	Change Change
}

// Row is a stretch of the comparison that begins at the start of a line
// in every version and ends at the end of a line in every version: what
// a screen lays out side by side, padding the shorter panes to the
// tallest, so that panes scrolled together stay together. A row is one
// line of every version where nothing changed the line structure; lines
// added, removed or broken differently make it longer in some versions
// and empty in others.
type Row struct {
	// Base is nil without an ancestor.
	Base, A, B []Span
}

// Changed reports whether any span of the row changed.
func (r Row) Changed() bool {
	return r.Has(ChangedA) || r.Has(ChangedB) || r.Has(ChangedBoth) || r.Has(Disputed)
}

// Has reports whether a span of the row changed as ch.
func (r Row) Has(ch Change) bool {
	for _, side := range [][]Span{r.Base, r.A, r.B} {
		for _, s := range side {
			if s.Change == ch {
				return true
			}
		}
	}
	return false
}

// Rows cuts the comparison into rows.
func (c Comparison) Rows() []Row {
	var rows []Row
	var cur Row
	// open[i] is true while version i (base, A, B) is inside a line.
	var open [3]bool
	emit := func() {
		if !open[0] && !open[1] && !open[2] && (len(cur.Base) > 0 || len(cur.A) > 0 || len(cur.B) > 0) {
			rows = append(rows, cur)
			cur = Row{}
		}
	}
	put := func(i int, side *[]Span, text string, ch Change) {
		if text == "" {
			return
		}
		*side = append(*side, Span{Text: text, Change: ch})
		open[i] = !strings.HasSuffix(text, "\n")
	}
	for _, r := range c.Regions {
		if r.Change == Unchanged {
			for s := r.A; s != ""; {
				n := strings.IndexByte(s, '\n') + 1
				if n == 0 {
					n = len(s)
				}
				if c.ThreeWay {
					put(0, &cur.Base, s[:n], Unchanged)
				}
				put(1, &cur.A, s[:n], Unchanged)
				put(2, &cur.B, s[:n], Unchanged)
				emit()
				s = s[n:]
			}
			continue
		}
		// The base's pane shows what happens to its text; a side's pane
		// shows its own text as changed only where that side changed it.
		chA, chB := r.Change, r.Change
		switch r.Change {
		case ChangedA:
			chB = Unchanged
		case ChangedB:
			chA = Unchanged
		}
		if c.ThreeWay {
			put(0, &cur.Base, r.Base, r.Change)
		}
		put(1, &cur.A, r.A, chA)
		put(2, &cur.B, r.B, chB)
		emit()
	}
	if len(cur.Base) > 0 || len(cur.A) > 0 || len(cur.B) > 0 {
		rows = append(rows, cur)
	}
	return rows
}
