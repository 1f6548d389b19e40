package detect

import (
	"math"
	"strconv"
	"strings"
)

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
