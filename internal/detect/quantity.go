package detect

import (
	"math"
	"strconv"
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

// labelAt reads a label: p99, P1, Q3, Sev2, v3, a date ("March 15",
// "2025-03-15", "29th of March"), a time of day, a year.
func (t *Text) labelAt(k, i int) (quantity, bool) {
	tk := t.toks[i]
	q := quantity{seg: k, from: i, to: i + 1, label: true}
	switch {
	case tk.kind == kNum && tk.is(fDate):
		q.fam, q.val = "date", tk.val
		q.val = monthDay(tk.w)
	case tk.kind == kNum && tk.is(fClock):
		q.fam, q.val = "clock", tk.val
	case tk.kind == kNum && tk.suffix() == "" && tk.val >= 1990 && tk.val <= 2100 && tk.val == math.Trunc(tk.val) &&
		!strings.ContainsAny(t.content[tk.start:tk.end], ",."):
		q.fam, q.val = "year", tk.val
	case tk.kind == kWord && tk.lx&lxMonth != 0 && tk.is(fUpper) && i+1 < t.segs[k].to && t.toks[i+1].kind == kNum &&
		t.toks[i+1].val >= 1 && t.toks[i+1].val <= 31:
		q.fam, q.val, q.to = "date", float64(months[tk.w]*32)+t.toks[i+1].val, i+2
	case tk.kind == kNum && (tk.suffix() == "th" || tk.suffix() == "st" || tk.suffix() == "nd" || tk.suffix() == "rd") &&
		i+2 < t.segs[k].to && t.toks[i+1].w == "of" && t.toks[i+2].lx&lxMonth != 0:
		q.fam, q.val, q.to = "date", float64(months[t.toks[i+2].w]*32)+tk.val, i+3
	case tk.kind == kNum && tk.suffix() == "th" && i+1 < t.segs[k].to && t.toks[i+1].w == "percentile":
		q.fam, q.val, q.to = "percentile", tk.val, i+2
	case tk.kind == kWord && tk.is(fIdent):
		fam, v, ok := labelWord(tk.w)
		if !ok {
			return q, false
		}
		q.fam, q.val = fam, v
		t.used[i] = true
		return q, true
	default:
		return q, false
	}
	for j := q.from; j < q.to; j++ {
		t.used[j] = true
	}
	return q, true
}

// labelWord reads p99 (a percentile), p1 (a priority), q3 (a quarter),
// sev2 (a severity) and v3 (a version).
func labelWord(w string) (string, float64, bool) {
	k := 0
	for k < len(w) && isLetter(w[k]) {
		k++
	}
	prefix, num := w[:k], w[k:]
	v, err := strconv.ParseFloat(num, 64)
	if k == 0 || err != nil {
		return "", 0, false
	}
	switch prefix {
	case "p":
		if v >= 50 {
			return "percentile", v, true
		}
		return "priority", v, true
	case "q":
		return "quarter", v, true
	case "sev", "s":
		return "severity", v, true
	case "v":
		return "ver:v", v, true
	case "h":
		return "half", v, true
	}
	return "", 0, false
}

func monthDay(date string) float64 {
	m, _ := strconv.Atoi(date[5:7])
	d, _ := strconv.Atoi(date[8:10])
	return float64(m*32 + d)
}

// fractionAt reads "half of", "a third of", "a quarter of" as a share, and
// "a quarter of an hour" as a time.
func (t *Text) fractionAt(k, i int) (quantity, bool) {
	s := t.segs[k]
	w := t.toks[i].w
	if i+1 >= s.to || t.toks[i+1].w != "of" || (w != "half" && (i == s.from || t.toks[i-1].w != "a")) {
		return quantity{}, false
	}
	share := map[string]float64{"half": 50, "third": 100.0 / 3, "quarter": 25}[w]
	q := quantity{seg: k, from: i, to: i + 2, fam: "%", val: share, prec: 0.5}
	if i+3 < s.to && (t.toks[i+2].w == "an" || t.toks[i+2].w == "a") && timeUnits[t.toks[i+3].w] != 0 {
		q.fam, q.val, q.to = "time", share/100*timeUnits[t.toks[i+3].w], i+4
	}
	q.lo, q.hi = q.val, q.val
	t.useRange(q.from, q.to)
	return q, true
}
