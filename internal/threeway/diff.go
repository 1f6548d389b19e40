package threeway

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/lcs"
)

// maxRefine bounds how many times one stretch is diffed again (see diff).
const maxRefine = 64

// edits returns the edits that turn from into to, in from's token
// positions: Start and End index from.toks, New is to's text. They are
// ordered and never touch. Lines are matched first; the tokens of the
// lines that differ are matched next, stretch by stretch.
func edits(from, to *text) []udiff.Edit {
	var out []udiff.Edit
	for _, d := range diff(from.lines, to.lines) {
		fs, fe := from.lineTok[d.Start], from.lineTok[d.End]
		ts, te := to.lineTok[d.ReplStart], to.lineTok[d.ReplEnd]
		if fs == fe || ts == te { // whole lines added or removed
			out = append(out, udiff.Edit{Start: fs, End: fe, New: strings.Join(to.toks[ts:te], "")})
			continue
		}
		for _, w := range diff(from.toks[fs:fe], to.toks[ts:te]) {
			out = append(out, udiff.Edit{Start: fs + w.Start, End: fs + w.End,
				New: strings.Join(to.toks[ts+w.ReplStart:ts+w.ReplEnd], "")})
		}
	}
	return out
}

// diff returns the differences between two sequences of strings.
//
// go-udiff's lcs stops looking after about a hundred differences and
// reports everything between what it matched from either end as one
// replacement. diff therefore diffs every replaced stretch again, until
// the two sides of a stretch share nothing more that lcs can find: a
// long text with many scattered changes comes out as many small edits,
// not one big one.
func diff(a, b []string) []lcs.Diff {
	var out []lcs.Diff
	var refine func(d lcs.Diff, depth int)
	refine = func(d lcs.Diff, depth int) {
		n, m := d.End-d.Start, d.ReplEnd-d.ReplStart
		if depth > 0 && (n == 0 || m == 0 || depth > maxRefine) {
			out = append(out, d)
			return
		}
		sub := lcs.DiffLines(a[d.Start:d.End], b[d.ReplStart:d.ReplEnd])
		if depth > 0 && len(sub) == 1 && sub[0] == (lcs.Diff{End: n, ReplEnd: m}) {
			out = append(out, d) // nothing in common
			return
		}
		for _, s := range sub {
			refine(lcs.Diff{Start: d.Start + s.Start, End: d.Start + s.End,
				ReplStart: d.ReplStart + s.ReplStart, ReplEnd: d.ReplStart + s.ReplEnd}, depth+1)
		}
	}
	refine(lcs.Diff{End: len(a), ReplEnd: len(b)}, 0)
	return out
}
