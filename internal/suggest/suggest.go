// Package suggest finds, among known names, those a mistyped one was
// probably meant to be: "did you mean maya?".
package suggest

import (
	"slices"
	"strings"
)

// Closest returns the candidates name is most likely a slip for, best
// first, at most three: those a few edits away (a letter left out, added,
// changed or two swapped, or a letter's case; two edits for names of six
// letters or more, three from ten), and those that hold name whole as a
// part between '-', '_' or '.' ("maya" for "ops-maya"). None if nothing
// is close.
func Closest(name string, candidates []string) []string {
	given := name
	name = strings.ToLower(name)
	if name == "" {
		return nil
	}
	type scored struct {
		s string
		d int
	}
	most := 1
	switch n := len([]rune(name)); {
	case n >= 10:
		most = 3
	case n >= 6:
		most = 2
	}
	var found []scored
	for _, c := range candidates {
		if c == given {
			continue
		}
		lc := strings.ToLower(c)
		d := distance(name, lc)
		if d > 1 && hasPart(lc, name) {
			d = 1
		}
		if d <= most {
			found = append(found, scored{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.s, b.s)
	})
	var out []string
	for _, f := range found[:min(len(found), 3)] {
		out = append(out, f.s)
	}
	return out
}

// Phrase is "did you mean a?" or "did you mean a or b?" for Closest's
// answer; "" for none.
func Phrase(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "did you mean " + names[0] + "?"
	}
	return "did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

// hasPart reports whether part is one of s's parts between separators.
func hasPart(s, part string) bool {
	return slices.Contains(strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' }), part)
}

// distance is the optimal string alignment distance of a and b: the
// edits (insert, delete, replace, swap two neighbours) from one to the
// other.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
