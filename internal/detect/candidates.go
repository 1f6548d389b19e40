package detect

import (
	"math"
	"slices"
	"strings"
)

// Term is a word to ask a field's word index for, to find the units most
// likely to be about the same thing as a new one.
type Term struct {
	// Word is a prefix of a folded word, as the engines' word search takes
	// it ("autoscal" finds "autoscaling" and "autoscales").
	Word string
	// Whole is the word itself, folded, as the unit writes it (its longest
	// part between marks): for an index whose search for a prefix costs
	// reading every unit that holds it (SQLite's FTS5 without a prefix
	// index of that length), asked for whole instead.
	Whole string
	// Purpose says the word comes from the unit's intent.purpose.
	Purpose bool
	h       uint32 // the stem it stands for
	weight  float64
}

// common are words too frequent in a team's field to find a unit's
// neighbours by, whatever the engine's counts say.
var common = wordSet(`team service data system use new time week day month year work change number issue
	problem update current last next today value result plan test run based need`)

// Terms are the words of t to look its neighbours up by, at most n, the
// likeliest to be rare first: identifiers and names, then long words;
// words of the purpose are added (they say what the unit is about even
// when its content does not). Opposite terms, negators and numbers are
// left out: they say what is claimed, not what it is about.
func (t *Text) Terms(n int) []Term {
	seen := map[uint32]int{}
	var out []Term
	add := func(tk tok, purpose bool) {
		if tk.kind != kWord || tk.pole.group != 0 || common[tk.w] || len(tk.w) < 3 {
			return
		}
		w := 0.0
		switch {
		case tk.is(fIdent):
			w = 3
		case tk.is(fCaps) || tk.is(fUpperEnd):
			w = 2
		}
		w += math.Min(float64(len(tk.w)), 12) / 4
		if purpose {
			w++
		}
		if k, ok := seen[tk.h]; ok {
			out[k].weight += 0.5
			out[k].Purpose = out[k].Purpose || purpose
			return
		}
		seen[tk.h] = len(out)
		out = append(out, Term{Word: prefixOf(tk), Whole: longestPart(tk.w), Purpose: purpose, h: tk.h, weight: w})
	}
	for i, tk := range t.toks {
		if !t.used[i] {
			add(tk, false)
		}
	}
	for _, tk := range t.purposeToks {
		add(tk, true)
	}
	slices.SortStableFunc(out, func(a, b Term) int {
		switch {
		case a.weight > b.weight:
			return -1
		case a.weight < b.weight:
			return 1
		}
		return 0
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// prefixOf is what a word index is asked for a word: the part it shares
// with its stem, so that its other forms match too, or the word itself
// when that part is short.
func prefixOf(tk tok) string {
	w, s := tk.w, tk.stem
	k := 0
	for k < len(w) && k < len(s) && w[k] == s[k] {
		k++
	}
	if k >= 4 {
		w = w[:k]
	}
	return longestPart(w)
}

// longestPart is the longest part of w between marks: the engines split
// words at them.
func longestPart(w string) string {
	if !strings.ContainsAny(w, "-._") {
		return w
	}
	best := ""
	for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
		if len(p) > len(best) {
			best = p
		}
	}
	return best
}

// Rank orders the candidates a word index returned for t by the rare words
// they share with it: the sum, over the terms a candidate holds, of the
// term's inverse document frequency, log(total / df), df[i] being how many
// of the field's total units hold terms[i] (counts the caller looked up;
// a count of 0 is taken as 1); a candidate with the same purpose gains the
// weight of its rarest term. It returns the indexes of at most limit
// candidates, best first, leaving out those that share no term.
func Rank(t *Text, terms []Term, df []int, total int, cands []*Text, limit int) []int {
	idf := make([]float64, len(terms))
	rarest := 0.0
	for i := range terms {
		n := 1
		if i < len(df) && df[i] > 0 {
			n = df[i]
		}
		idf[i] = math.Log(float64(max(total, n)) / float64(n))
		rarest = math.Max(rarest, idf[i])
	}
	type scored struct {
		i int
		s float64
	}
	var out []scored
	for i, c := range cands {
		s := 0.0
		for k, term := range terms {
			if has(c.words, term.h) || has(c.purpose, term.h) {
				s += idf[k]
			}
		}
		if s == 0 {
			continue
		}
		if len(t.purpose) > 0 && len(c.purpose) > 0 {
			if sim, _ := overlap(t.purpose, c.purpose); sim >= 0.5 {
				s += rarest * sim
			}
		}
		out = append(out, scored{i, s})
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	idx := make([]int, 0, min(limit, len(out)))
	for _, s := range out[:min(limit, len(out))] {
		idx = append(idx, s.i)
	}
	return idx
}

// RankHits orders units by the rare terms they share with a new unit,
// from what a word index returned alone, before any unit is read: hits[i]
// are the keys (a unit's id or sequence number) of the units the index
// returned for terms[i]; df[i] how many of the field's total units hold
// terms[i] (at least len(hits[i])). A unit scores the inverse document
// frequency of every term it was returned for. It returns at most limit
// keys, best first; ties go to the key returned for the earlier term.
func RankHits[K comparable](terms []Term, hits [][]K, df []int, total int, limit int) []K {
	score := map[K]float64{}
	var order []K
	for i := range terms {
		if i >= len(hits) {
			break
		}
		n := max(1, len(hits[i]))
		if i < len(df) && df[i] > n {
			n = df[i]
		}
		idf := math.Log(float64(max(total, n)) / float64(n))
		for _, k := range hits[i] {
			if _, ok := score[k]; !ok {
				order = append(order, k)
			}
			score[k] += idf
		}
	}
	slices.SortStableFunc(order, func(a, b K) int {
		switch sa, sb := score[a], score[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return order[:min(limit, len(order))]
}
