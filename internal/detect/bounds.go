package detect

import (
	"math"
	"strings"
)

// bounds are the words before a number that make it a bound.
var (
	upperBounds = fieldsOf("under", "below", "<", "≤", "within", "max", "maximum", "up to", "less than", "fewer than", "at most",
		"no more than", "not more than", "lower than", "no higher than", "shorter than")
	lowerBounds = fieldsOf("over", "above", ">", "≥", "more than", "at least", "exceeds", "exceeding", "exceed", "minimum",
		"greater than", "higher than", "longer than", "no less than", "no fewer than", "beyond")
	approxWords = map[string]bool{"about": true, "around": true, "roughly": true, "approximately": true, "approx": true,
		"nearly": true, "almost": true, "some": true, "circa": true, "~": true, "≈": true, "estimated": true}
)

// prefix reads the words before a quantity: a bound, an approximation, a
// past value ("from", "was … now", "used to").
func (t *Text) prefix(q *quantity, start int) {
	i := q.from
	if i > start && t.used[i-1] && t.toks[i-1].kind == kSym {
		i-- // past the currency sign
	}
	for j := i - 1; j >= start && j >= i-3; j-- {
		if approxWords[t.toks[j].w] {
			q.slack = math.Max(q.slack, 0.1)
			t.used[j] = true
			i = j
		}
	}
	if b, n := t.boundBefore(i, start, upperBounds); n > 0 {
		q.lo = math.Inf(-1)
		t.useRange(b, i)
	} else if b, n := t.boundBefore(i, start, lowerBounds); n > 0 {
		q.hi = math.Inf(1)
		t.useRange(b, i)
	}
	sentEnd := t.sentenceEnd(q.seg)
	for j := i - 1; j >= start && j >= i-4; j-- {
		w := t.toks[j].w
		switch {
		case w == "from" && j >= i-2 && (t.toAfter(q.to, sentEnd) || (j > start && (t.toks[j-1].w == "down" || t.toks[j-1].w == "up"))):
			q.past = true
		case (w == "was" || w == "were") && t.nowAfter(q.to, sentEnd):
			q.past = true
		case t.toks[j].kind == kNeg && t.toks[j].is(fTemporal) && w != "no longer":
			q.past = true
		}
	}
	if i-1 >= start && t.toks[i-1].w == "→" {
		q.past = false
	}
	if q.to < sentEnd && t.toks[q.to].w == "→" {
		q.past = true
	}
}

func fieldsOf(phrases ...string) [][]string {
	out := make([][]string, len(phrases))
	for i, p := range phrases {
		out[i] = strings.Fields(p)
	}
	return out
}

func (t *Text) boundBefore(i, start int, bounds [][]string) (int, int) {
	for _, words := range bounds {
		j := i - len(words)
		if j < start {
			continue
		}
		ok := true
		for k, w := range words {
			if t.toks[j+k].w != w {
				ok = false
				break
			}
		}
		if ok {
			return j, len(words)
		}
	}
	return 0, 0
}

func (t *Text) useRange(from, to int) {
	for j := from; j < to; j++ {
		t.used[j] = true
	}
}

// sentenceEnd is the token after the last of the segment's sentence.
func (t *Text) sentenceEnd(k int) int {
	sent := t.segs[k].sent
	for k+1 < len(t.segs) && t.segs[k+1].sent == sent {
		k++
	}
	return t.segs[k].to
}

func (t *Text) toAfter(j, end int) bool {
	for ; j < end && j < len(t.toks); j++ {
		if w := t.toks[j].w; w == "to" || w == "→" {
			return true
		}
	}
	return false
}

func (t *Text) nowAfter(j, end int) bool {
	for ; j < end; j++ {
		if t.toks[j].w == "now" {
			return true
		}
	}
	return false
}

// rangeAfter reads the second number of a range ("3 to 4 weeks",
// "between 3 and 10 nodes", "30-50 ms"): the quantity becomes the range,
// with the unit the second number carries when the first has none. After
// "from" the second number is the new value, read as a quantity of its own.
func (t *Text) rangeAfter(q *quantity, end int, scale float64) {
	j := q.to
	if j+1 >= end || t.toks[j+1].kind != kNum || t.used[j+1] {
		return
	}
	w := t.toks[j].w
	between := q.from >= 1 && t.toks[q.from-1].w == "between"
	if !(w == "to" || w == "–" || (w == "and" && between)) {
		return
	}
	second, ok := t.quantityAt(q.seg, j+1)
	if !ok {
		return
	}
	if q.fam == "bare" && second.fam != "bare" {
		q.fam, q.per = second.fam, second.per
		f := second.val / t.toks[j+1].val
		if t.toks[j+1].val == 0 {
			f = 1
		}
		q.val *= f / scale
		q.prec *= f / scale
		q.lo, q.hi = q.val, q.val
	}
	if q.past || second.fam != q.fam {
		t.quants = append(t.quants, second)
		return
	}
	t.used[j] = true
	q.lo, q.hi, q.to = math.Min(q.val, second.val), math.Max(q.val, second.val), second.to
	q.prec = math.Max(q.prec, second.prec)
}
