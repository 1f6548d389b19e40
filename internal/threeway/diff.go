package threeway

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

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
// Two things are added to go-udiff's lcs, which finds them:
//
//   - Anchors first, as git's patience diff does: strings with a letter or
//     digit that occur exactly once on each side are matched in the
//     longest run that keeps both orders, and only the stretches between
//     them go to lcs. Where several alignments are equally long, lcs may
//     match a "/" or an "s" from two different numbers; a word that occurs
//     once on each side keeps a sentence aligned on its words.
//   - lcs stops looking after about a hundred differences and reports
//     everything between what it matched from either end as one
//     replacement, so every replaced stretch is diffed again until the two
//     sides of it share nothing more: a long text with many scattered
//     changes comes out as many small edits, not one big one.
func diff(a, b []string) []lcs.Diff {
	var out []lcs.Diff
	diffInto(&out, a, b, 0, 0, 0)
	return out
}

// diffInto appends the differences between a and b, which start at
// offA and offB of the whole sequences.
func diffInto(out *[]lcs.Diff, a, b []string, offA, offB, depth int) {
	// What both begin and end with is matched as it is.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	a, b, offA, offB = a[pre:], b[pre:], offA+pre, offB+pre
	suf := 0
	for suf < len(a) && suf < len(b) && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	a, b = a[:len(a)-suf], b[:len(b)-suf]
	whole := lcs.Diff{Start: offA, End: offA + len(a), ReplStart: offB, ReplEnd: offB + len(b)}
	switch {
	case len(a) == 0 && len(b) == 0:
		return
	case len(a) == 0 || len(b) == 0 || depth > maxRefine:
		*out = append(*out, whole)
		return
	}
	if anchors := patienceAnchors(a, b); len(anchors) > 0 {
		pa, pb := 0, 0
		for _, an := range anchors {
			diffInto(out, a[pa:an[0]], b[pb:an[1]], offA+pa, offB+pb, depth+1)
			pa, pb = an[0]+1, an[1]+1
		}
		diffInto(out, a[pa:], b[pb:], offA+pa, offB+pb, depth+1)
		return
	}
	sub := lcs.DiffLines(a, b)
	if len(sub) == 1 && sub[0] == (lcs.Diff{End: len(a), ReplEnd: len(b)}) {
		*out = append(*out, whole) // nothing in common
		return
	}
	for _, s := range sub {
		diffInto(out, a[s.Start:s.End], b[s.ReplStart:s.ReplEnd], offA+s.Start, offB+s.ReplStart, depth+1)
	}
}

// patienceAnchors returns the pairs (i, j) with a[i] == b[j] where a[i]
// has a letter or digit and occurs once in a and once in b: the longest
// run of such pairs increasing in both i and j.
func patienceAnchors(a, b []string) [][2]int {
	type seen struct{ na, nb, i, j int }
	count := make(map[string]*seen)
	for i, s := range a {
		if !meaningful(s) {
			continue
		}
		if c := count[s]; c != nil {
			c.na++
		} else {
			count[s] = &seen{na: 1, i: i}
		}
	}
	for j, s := range b {
		if c := count[s]; c != nil {
			c.nb++
			c.j = j
		}
	}
	var pairs [][2]int // in the order of a
	for i, s := range a {
		if c := count[s]; c != nil && c.na == 1 && c.nb == 1 && c.i == i {
			pairs = append(pairs, [2]int{i, c.j})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// Longest increasing subsequence of the js (patience sorting):
	// tails[k] is the pair ending the best run of length k+1 found so far.
	tails := []int{}
	prev := make([]int, len(pairs))
	for p, pair := range pairs {
		k, _ := slices.BinarySearchFunc(tails, pair[1], func(t, j int) int { return cmp.Compare(pairs[t][1], j) })
		prev[p] = -1
		if k > 0 {
			prev[p] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, p)
		} else {
			tails[k] = p
		}
	}
	run := make([][2]int, len(tails))
	for k, p := len(tails)-1, tails[len(tails)-1]; k >= 0; k, p = k-1, prev[p] {
		run[k] = pairs[p]
	}
	return run
}

// meaningful reports whether s holds a letter or a digit: only such
// strings anchor a diff.
func meaningful(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
