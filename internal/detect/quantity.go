package detect

import (
	"math"
	"strings"
)

// quantity is a value a unit states: a measure ("40 ms", "23% CAGR",
// "$48k a month", "14 engineers", "between 3 and 10 nodes") or a label,
// a value that names rather than measures (a version, a date, a quarter, a
// priority level).
type quantity struct {
	fam      string  // what kind of value: time, %, money:usd, bytes, x, count:<noun>, bare; or a label's kind
	val      float64 // in the family's base unit (seconds, bytes, …)
	prec     float64 // half the place of its last digit, in the same unit
	lo, hi   float64 // what it states: [val, val], a bound or a range
	per      float64 // the period of a rate, in seconds; 0 for none
	slack    float64 // relative: "about", "give or take 10%"
	label    bool
	past     bool // a value it had before: "from 90 ms", "was 250 ms, now …"
	seg      int
	from, to int      // its tokens
	subj     []uint32 // the words around it, sorted
	subjTok  []int    // their tokens
	borrowed bool     // subj was taken from the whole sentence
	key      uint32   // what it counts ("engineers") or the word after it ("CAGR", "of traffic")
	labels   []int    // the labels beside it (indexes in quants)
}

// quantities finds the values each segment states.
func (t *Text) quantities() {
	for k := range t.segs {
		s := &t.segs[k]
		if s.question {
			continue
		}
		for i := s.from; i < s.to; i++ {
			if t.used[i] {
				continue
			}
			if len(t.quants) >= maxQuantities {
				break
			}
			if q, ok := t.quantityAt(k, i); ok {
				t.quants = append(t.quants, q)
			}
		}
	}
	for qi := range t.quants {
		t.subject(qi)
		q := &t.quants[qi]
		if !q.label {
			t.segs[q.seg].quants++
		}
		for li := range t.quants {
			if l := &t.quants[li]; l.label && li != qi && t.beside(l.seg, q.seg) && len(q.labels) < 4 {
				q.labels = append(q.labels, li)
			}
		}
	}
}

// quantityAt reads a quantity starting at token i, if one does.
func (t *Text) quantityAt(k, i int) (quantity, bool) {
	s := t.segs[k]
	tk := t.toks[i]
	if q, ok := t.labelAt(k, i); ok {
		return q, true
	}
	if tk.kind == kWord && (tk.w == "half" || tk.w == "third" || tk.w == "quarter") {
		return t.fractionAt(k, i)
	}
	if tk.kind != kNum || tk.is(fDate) || tk.is(fClock) {
		return quantity{}, false
	}
	q := quantity{seg: k, from: i, to: i + 1, val: tk.val, prec: float64(tk.prec), fam: "bare"}
	t.used[i] = true
	scale := 1.0
	switch sfx := tk.suffix(); {
	case sfx == "m" && tk.is(fUpperEnd), sfx == "mn", sfx == "mm":
		scale = 1e6
	case sfx == "b" && tk.is(fUpperEnd), sfx == "bn":
		scale = 1e9
	case sfx == "k":
		scale = 1e3
	case sfx == "m":
		q.fam, scale = "time", 60
	case sfx == "x":
		q.fam = "x"
	case sfx == "pp":
		q.fam = "%"
	case rateUnits[sfx]:
		q.fam, q.per = "count:request", 1
		if sfx == "rpm" {
			q.per = 60
		}
	default:
		if f, ok := timeUnits[sfx]; ok && sfx != "" {
			q.fam, scale = "time", f
		} else if f, ok := byteUnits[sfx]; ok && sfx != "" {
			q.fam, scale = "bytes", f
		}
	}
	if i > s.from {
		if c, ok := currencies[t.toks[i-1].w]; ok && t.toks[i-1].kind == kSym {
			q.fam = "money:" + c
			t.used[i-1] = true
		}
	}
	scale *= t.unitAfter(&q, s.to)
	if next := q.to; q.fam == "bare" || strings.HasPrefix(q.fam, "count:") || strings.HasPrefix(q.fam, "money:") || q.fam == "bytes" {
		t.periodAfter(&q, next, s.to)
	}
	q.val *= scale
	q.prec = math.Min(q.prec*scale, 0.05*math.Abs(q.val))
	q.lo, q.hi = q.val, q.val
	if t.giveOrTake(k, i, q) {
		return quantity{}, false
	}
	t.prefix(&q, s.from)
	t.rangeAfter(&q, s.to, scale)
	if q.fam == "bare" || (strings.HasPrefix(q.fam, "count:") && q.per == 0) {
		// "Go 1.21", "Safari 16", "Node 16 runtime": a name and its version
		if prev := i - 1; prev >= s.from && (t.toks[prev].kind == kWord && t.toks[prev].is(fUpper) || t.toks[prev].kind == kStop && t.toks[prev].is(fCaps)) && t.toks[i].before == brkNone &&
			tk.suffix() == "" && !t.used[prev] && q.lo == q.hi && q.slack == 0 {
			q.fam, q.label, q.prec, q.to = "ver:"+t.toks[prev].w, true, 0, i+1
		}
	}
	return q, true
}

// unitAfter reads the words after a number that say what it counts: a
// scale ("1.2 billion"), a unit ("40 ms", "23 %", "€210k"), or a noun
// ("14 engineers"). It returns the scale.
func (t *Text) unitAfter(q *quantity, end int) float64 {
	scale := 1.0
	for j := q.to; j < end && j < q.to+3; j++ {
		w, tk := t.toks[j].w, t.toks[j]
		if tk.before >= brkComma {
			break
		}
		if f, ok := scaleWords[w]; ok && scale == 1 && (w != "k" || j == q.to) {
			scale, q.to, t.used[j] = f, j+1, true
			continue
		}
		switch {
		case w == "%" || w == "percent" || w == "pct" || w == "pp":
			q.fam = "%"
		case currencies[w] != "" && tk.kind != kSym:
			q.fam = "money:" + currencies[w]
		case (w == "x" || w == "×") && q.fam == "bare":
			q.fam = "x"
		case timeUnits[w] != 0 && q.fam == "bare" && (len(w) > 1 || w == "s" || w == "h" || w == "d"):
			q.fam = "time"
			scale *= timeUnits[w]
		case byteUnits[w] != 0 && q.fam == "bare":
			q.fam = "bytes"
			scale *= byteUnits[w]
		case rateUnits[w] && q.fam == "bare":
			q.fam, q.per = "count:request", 1
		case q.fam == "bare" && tk.kind == kWord && j+1 < end && timeUnits[t.toks[j+1].w] != 0 && len(t.toks[j+1].w) > 1:
			// "5 business days": one word between a number and its unit
			q.fam = "time"
			scale *= timeUnits[t.toks[j+1].w]
			t.used[j+1] = true
			q.to = j + 2
			return scale
		case q.fam == "bare" && (w == "in" || w == "of") && j+1 < end:
			// "one in 40", "31 of every 1,000": a share
			k := j + 1
			if t.toks[k].w == "every" && k+1 < end {
				k++
			}
			if n := t.toks[k]; n.kind == kNum && n.val > q.val && (w == "in" || k > j+1) {
				q.fam, q.prec = "%", q.prec/n.val*100
				scale *= 100 / n.val
				t.useRange(j, k+1)
				q.to = k + 1
			}
			return scale
		case q.fam == "bare" && tk.kind == kWord && tk.pole.group == 0:
			noun := tk.stem
			if n := j + 1; n < end && t.toks[n].kind == kWord && t.toks[n].before == brkNone {
				if _, ok := countUnit[t.toks[n].stem]; ok {
					noun, j = t.toks[n].stem, n // "6 API replicas"
				}
			}
			q.fam = "count:" + countNoun(noun)
			q.to = j + 1 // the noun stays a word of the claim
			return scale
		default:
			return scale
		}
		t.used[j] = true
		q.to = j + 1
		if q.fam != "bare" && !strings.HasPrefix(q.fam, "money:") {
			return scale
		}
	}
	return scale
}

// countNoun is the noun a count is of, folded to its singular.
func countNoun(s string) string {
	if u, ok := countUnit[s]; ok {
		return u
	}
	return s
}

// periodAfter reads the period that makes a quantity a rate: "per day",
// "a month", "/s", "weekly".
func (t *Text) periodAfter(q *quantity, j, end int) {
	if q.per != 0 {
		return
	}
	for ; j < end && j < q.to+3; j++ {
		w := t.toks[j].w
		if p, ok := periods[w]; ok {
			q.per, t.used[j] = p, true
			return
		}
		if w == "per" || w == "a" || w == "an" || w == "/" || w == "each" || w == "every" {
			if j+1 < end {
				u := t.toks[j+1].w
				if f, ok := timeUnits[u]; ok {
					q.per = f
					t.used[j], t.used[j+1] = true, true
					return
				}
			}
			return
		}
		if t.toks[j].kind != kWord || t.used[j] {
			return
		}
	}
}

// giveOrTake reads "give or take 10%" and "± 10%": a slack for the
// quantity before it in the segment, not a quantity of its own.
func (t *Text) giveOrTake(k, i int, q quantity) bool {
	s := t.segs[k]
	slackWord := i-1 >= s.from && (t.toks[i-1].w == "±" || (i-3 >= s.from && t.toks[i-3].w == "give" && t.toks[i-1].w == "take"))
	if !slackWord || len(t.quants) == 0 {
		return false
	}
	prev := &t.quants[len(t.quants)-1]
	if prev.seg != k || prev.label {
		return false
	}
	if q.fam == "%" {
		prev.slack = math.Max(prev.slack, q.val/100)
	} else if prev.val != 0 {
		prev.slack = math.Max(prev.slack, q.val/math.Abs(prev.val))
	}
	for j := i - 1; j < q.to; j++ {
		t.used[j] = true
	}
	return true
}
