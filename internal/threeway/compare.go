package threeway

import (
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Change says who changed a region, against the base.
type Change int

const (
	// Unchanged: every version has the same text.
	Unchanged Change = iota
	// ChangedA: A changed it; B kept the base's text.
	ChangedA
	// ChangedB: B changed it; A kept the base's text.
	ChangedB
	// ChangedBoth: both changed it to the same text.
	ChangedBoth
	// Disputed: both changed it, differently; or, without an ancestor,
	// the two texts differ there. A person settles it.
	Disputed
)

func (c Change) String() string {
	switch c {
	case Unchanged:
		return "unchanged"
	case ChangedA:
		return "changed by A"
	case ChangedB:
		return "changed by B"
	case ChangedBoth:
		return "changed alike by both"
	case Disputed:
		return "disputed"
	}
	return "unknown"
}

// Region is a stretch of the texts with its text in every version.
// Joined in order, the regions' Base, A and B are the three texts.
type Region struct {
	Change Change
	// Base is the ancestor's text; "" in a comparison without one.
	Base, A, B string
}

// Comparison is three texts (or two) cut into regions.
type Comparison struct {
	// ThreeWay is true when there is a base (Compare), false for two
	// texts alone (CompareTwo), whose regions are Unchanged or Disputed.
	ThreeWay bool
	Regions  []Region
}

// Count is how many regions changed as ch.
func (c Comparison) Count(ch Change) int {
	n := 0
	for _, r := range c.Regions {
		if r.Change == ch {
			n++
		}
	}
	return n
}

// Compare compares a and b, two revisions of base, word by word.
func Compare(base, a, b string) Comparison {
	tb, ta, tbb := cut(base), cut(a), cut(b)
	xs, ys := edits(tb, ta), edits(tb, tbb)
	var out regions
	pos := 0 // base tokens before pos are written
	for i, j := 0, 0; i < len(xs) || j < len(ys); {
		var cx, cy []udiff.Edit
		var start, end int
		cx, cy, start, end, i, j = nextCluster(xs, ys, i, j)
		out.same(join(tb.toks[pos:start]))
		out.cluster(tb.toks, start, end, cx, cy)
		pos = end
	}
	out.same(join(tb.toks[pos:]))
	return Comparison{ThreeWay: true, Regions: regions(out.coalesce()).trimSpaces(true)}
}

// nextCluster takes from xs[i:] and ys[j:] the edit that starts first,
// and every later edit of either side whose stretch of the base overlaps
// or touches the stretch taken so far, base[start:end]. It returns them
// per side, and where each side's list goes on.
func nextCluster(xs, ys []udiff.Edit, i, j int) (cx, cy []udiff.Edit, start, end, nexti, nextj int) {
	if j == len(ys) || (i < len(xs) && xs[i].Start <= ys[j].Start) {
		start, end = xs[i].Start, xs[i].End
	} else {
		start, end = ys[j].Start, ys[j].End
	}
	for {
		switch {
		case i < len(xs) && xs[i].Start <= end:
			cx, end = append(cx, xs[i]), max(end, xs[i].End)
			i++
		case j < len(ys) && ys[j].Start <= end:
			cy, end = append(cy, ys[j]), max(end, ys[j].End)
			j++
		default:
			return cx, cy, start, end, i, j
		}
	}
}

// CompareTwo compares a and b word by word, without an ancestor: what
// they share is Unchanged, every difference is Disputed.
func CompareTwo(a, b string) Comparison {
	ta, tb := cut(a), cut(b)
	var out regions
	pos := 0
	for _, e := range edits(ta, tb) {
		out.same(join(ta.toks[pos:e.Start]))
		out.add(Region{Change: Disputed, A: join(ta.toks[e.Start:e.End]), B: e.New})
		pos = e.End
	}
	out.same(join(ta.toks[pos:]))
	for i := range out {
		out[i].Base = ""
	}
	return Comparison{Regions: regions(out.coalesce()).trimSpaces(false)}
}

type regions []Region

func (rs *regions) add(r Region) {
	if r.Base == "" && r.A == "" && r.B == "" {
		return
	}
	*rs = append(*rs, r)
}

// same adds text every version has.
func (rs *regions) same(s string) { rs.add(Region{Change: Unchanged, Base: s, A: s, B: s}) }

// cluster adds the regions of base[start:end], which A changes with cx and
// B with cy. One side alone, or both alike, is settled. When both change
// it, go-udiff's Merge decides: if it finds the edits collide, the whole
// cluster is disputed. Merge accepts two insertions at one place (it
// writes A's then B's) and splits an edit around one inside it; both are
// the sides disagreeing about one spot, so they are disputed too.
func (rs *regions) cluster(base []string, start, end int, cx, cy []udiff.Edit) {
	if len(cy) == 0 || len(cx) == 0 || slices.Equal(cx, cy) {
		ch, es := ChangedA, cx
		switch {
		case len(cx) == 0:
			ch, es = ChangedB, cy
		case len(cy) > 0:
			ch = ChangedBoth
		}
		rs.edits(base, start, end, es, func(udiff.Edit) Change { return ch })
		return
	}
	merged, ok := udiff.Merge(cx, cy)
	if ok {
		for k, e := range merged {
			inX, inY := slices.Contains(cx, e), slices.Contains(cy, e)
			split := !inX && !inY
			twoInserts := k > 0 && e.Start == e.End && merged[k-1].Start == e.Start && merged[k-1].End == e.Start
			if split || twoInserts {
				ok = false
				break
			}
		}
	}
	if !ok {
		rs.add(Region{Change: Disputed, Base: join(base[start:end]),
			A: apply(base, start, end, cx), B: apply(base, start, end, cy)})
		return
	}
	rs.edits(base, start, end, merged, func(e udiff.Edit) Change {
		switch inX, inY := slices.Contains(cx, e), slices.Contains(cy, e); {
		case inX && inY:
			return ChangedBoth
		case inX:
			return ChangedA
		}
		return ChangedB
	})
}

// edits adds base[start:end] with es applied, each edit a region of the
// change kind says.
func (rs *regions) edits(base []string, start, end int, es []udiff.Edit, kind func(udiff.Edit) Change) {
	pos := start
	for _, e := range es {
		rs.same(join(base[pos:e.Start]))
		old := join(base[e.Start:e.End])
		r := Region{Change: kind(e), Base: old, A: old, B: old}
		switch r.Change {
		case ChangedA:
			r.A = e.New
		case ChangedB:
			r.B = e.New
		default:
			r.A, r.B = e.New, e.New
		}
		rs.add(r)
		pos = e.End
	}
	rs.same(join(base[pos:end]))
}

// apply is base[start:end] with es applied.
func apply(base []string, start, end int, es []udiff.Edit) string {
	var b strings.Builder
	pos := start
	for _, e := range es {
		b.WriteString(join(base[pos:e.Start]))
		b.WriteString(e.New)
		pos = e.End
	}
	b.WriteString(join(base[pos:end]))
	return b.String()
}

// coalesce joins neighbouring regions of one kind, and two changes of
// one kind with only a short gap of spaces and punctuation between them
// on one line: "[base: the quick][A: a slow]" rather than two groups a
// space apart. A gap with a table's cell separator is never bridged, so a
// changed cell stays its own region.
func (rs regions) coalesce() []Region {
	out := make([]Region, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if n := len(out); n > 0 && out[n-1].Change == r.Change {
			out[n-1] = joinRegions(out[n-1], r)
			continue
		}
		if n := len(out); n > 0 && r.Change == Unchanged && out[n-1].Change != Unchanged &&
			i+1 < len(rs) && rs[i+1].Change == out[n-1].Change && bridgeable(r.A) {
			out[n-1] = joinRegions(joinRegions(out[n-1], r), rs[i+1])
			i++
			continue
		}
		out = append(out, r)
	}
	return out
}

// trimSpaces moves the spaces every version of a changed region begins
// or ends with out of it, into unchanged text beside it: where equally
// good alignments differ only in which space they match, the change
// holds the words and not the space.
func (rs regions) trimSpaces(threeWay bool) regions {
	out := make(regions, 0, len(rs))
	for _, r := range rs {
		if r.Change == Unchanged {
			out.add(r)
			continue
		}
		texts := []*string{&r.A, &r.B}
		if threeWay {
			texts = append(texts, &r.Base)
		}
		lead, trail := commonSpace(texts, strings.HasPrefix), commonSpace(texts, strings.HasSuffix)
		if lead+trail > 0 && lead+trail >= minLen(texts) {
			trail = 0 // never empty a version: leave its text a space
			if lead >= minLen(texts) {
				lead = 0
			}
		}
		pad := func(n int) Region {
			sp := strings.Repeat(" ", n)
			if !threeWay {
				return Region{Change: Unchanged, A: sp, B: sp}
			}
			return Region{Change: Unchanged, Base: sp, A: sp, B: sp}
		}
		for _, t := range texts {
			*t = (*t)[lead : len(*t)-trail]
		}
		if lead > 0 {
			out.add(pad(lead))
		}
		out.add(r)
		if trail > 0 {
			out.add(pad(trail))
		}
	}
	// Spaces moved out join the unchanged text beside them.
	joined := out[:0]
	for _, r := range out {
		if n := len(joined); n > 0 && r.Change == Unchanged && joined[n-1].Change == Unchanged {
			joined[n-1] = joinRegions(joined[n-1], r)
			continue
		}
		joined = append(joined, r)
	}
	return joined
}

// commonSpace is how many spaces every text begins (or ends) with.
func commonSpace(texts []*string, has func(s, affix string) bool) int {
	n := 0
	for {
		sp := strings.Repeat(" ", n+1)
		for _, t := range texts {
			if !has(*t, sp) {
				return n
			}
		}
		n++
	}
}

func minLen(texts []*string) int {
	m := len(*texts[0])
	for _, t := range texts[1:] {
		m = min(m, len(*t))
	}
	return m
}

func joinRegions(r, s Region) Region {
	return Region{Change: r.Change, Base: r.Base + s.Base, A: r.A + s.A, B: r.B + s.B}
}

// bridgeable reports whether a gap between two changes is short and
// holds only spaces and punctuation within a sentence.
func bridgeable(gap string) bool {
	if len(gap) > 3 {
		return false
	}
	for _, c := range []byte(gap) {
		if !strings.ContainsRune(" ,.;:", rune(c)) {
			return false
		}
	}
	return true
}

func join(toks []string) string {
	switch len(toks) {
	case 0:
		return ""
	case 1:
		return toks[0]
	}
	return strings.Join(toks, "")
}
