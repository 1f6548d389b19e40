package detect

import (
	"slices"
	"strings"
)

// subject gathers the words that say what quantity qi is of: those between
// it and its neighbours in its segment ("checkout p99 is 40 ms", "23%
// CAGR"); a value with no words of its own before it takes those of the
// value it follows ("was 250 ms, now 120 ms"); one with fewer than two
// takes its sentence's.
func (t *Text) subject(qi int) {
	q := &t.quants[qi]
	s := t.segs[q.seg]
	left, right := s.from, s.to
	var before *quantity
	for k := range t.quants {
		o := &t.quants[k]
		if k == qi || o.label || o.seg != q.seg {
			continue
		}
		if o.to <= q.from && o.to > left {
			left, before = o.to, o
		}
		if o.from >= q.to && o.from < right {
			right = o.from
		}
	}
	for i := left; i < q.from; i++ {
		t.addSubject(q, i)
	}
	if len(q.subjTok) == 0 && before != nil && before.fam == q.fam {
		q.subj = append(q.subj, before.subj...)
		q.subjTok = append(q.subjTok, before.subjTok...)
	}
	for i := q.to; i < right; i++ {
		if tk := t.toks[i]; tk.before >= brkComma || tk.w == "and" || tk.w == "while" {
			break
		}
		t.addSubject(q, i)
	}
	if len(q.subjTok) < 2 {
		q.borrowed = true
		sent := s.sent
		for k := range t.segs {
			o := &t.segs[k]
			if o.sent != sent {
				continue
			}
			for i := o.from; i < o.to; i++ {
				if !slices.Contains(q.subjTok, i) {
					t.addSubject(q, i)
				}
			}
		}
	}
	q.subj = sortedSet(q.subj)
	q.key = t.keyOf(q, right)
}

// keyOf is the word that names what a value is: the noun it counts, or the
// word right after it past a preposition ("23% CAGR", "50% of traffic").
func (t *Text) keyOf(q *quantity, end int) uint32 {
	if strings.HasPrefix(q.fam, "count:") {
		return hash(q.fam)
	}
	for j := q.to; j < end && j < q.to+3; j++ {
		tk := t.toks[j]
		switch {
		case j > q.to && tk.before >= brkComma, t.used[j]:
			return 0
		case tk.kind == kWord:
			return t.wordHash(j)
		case tk.lx&(lxArticle|lxPreposition) == 0:
			return 0
		}
	}
	return 0
}

func (t *Text) addSubject(q *quantity, i int) {
	tk := t.toks[i]
	if tk.kind != kWord || t.used[i] || len(q.subjTok) >= maxSubject {
		return
	}
	h := tk.h
	if tk.pole.group != 0 {
		h = poleHash(tk.pole.group)
	}
	q.subj = append(q.subj, h)
	q.subjTok = append(q.subjTok, i)
}

// overlap is how much two sorted word lists share: the mean of their Dice
// coefficient and of the share of the shorter one found in the longer.
func overlap(a, b []uint32) (sim float64, shared int) {
	shared = countShared(a, b)
	if shared == 0 {
		return 0, 0
	}
	dice := 2 * float64(shared) / float64(len(a)+len(b))
	cont := float64(shared) / float64(min(len(a), len(b)))
	return (dice + cont) / 2, shared
}

func countShared(a, b []uint32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

func has(set []uint32, h uint32) bool {
	_, ok := slices.BinarySearch(set, h)
	return ok
}

// contrasted reports whether two lists of words about a shared word say it
// of different things: "session tokens" and "refresh tokens", "CPU
// utilisation" and "memory utilisation", "margin on hardware" and "margin
// on software". A shared word whose neighbour differs on each side, where
// neither text uses the other's neighbour at all, marks two subjects. The
// neighbour before is the word right before (past an article); the one
// after, the word after a preposition.
func contrasted(a *Text, ta []int, b *Text, tb []int) bool {
	for _, i := range ta {
		h := a.wordHash(i)
		for _, j := range tb {
			if b.wordHash(j) != h {
				continue
			}
			for _, side := range []int{-1, 1} {
				na, nb := a.neighbour(i, side), b.neighbour(j, side)
				if na < 0 || nb < 0 {
					continue
				}
				wa, wb := a.toks[na], b.toks[nb]
				if wa.h != wb.h && !has(b.words, wa.h) && !has(a.words, wb.h) && !prefixed(wa.w, wb.w) {
					return true
				}
			}
		}
	}
	return false
}

// prefixed reports whether one word is the other with a prefix
// ("incompatible", "compatible").
func prefixed(x, y string) bool {
	if len(x) < len(y) {
		x, y = y, x
	}
	b, ok := prefixBase(x)
	return ok && stem(b) == stem(y)
}

// wordHash is a word token's hash as sets hold it: an opposite term as its
// pair.
func (t *Text) wordHash(i int) uint32 {
	if p := t.toks[i].pole; p.group != 0 {
		return poleHash(p.group)
	}
	return t.toks[i].h
}

// neighbour is the token of the content word beside token i on one side:
// before it, past at most two articles ("the data platform"); after it,
// past a preposition and articles ("margin on the hardware"). -1 when
// there is none: a break, a number, another kind of word between, or an
// opposite term.
func (t *Text) neighbour(i, side int) int {
	if side < 0 {
		return int(t.nbr[i][0])
	}
	return int(t.nbr[i][1])
}

// neighbours finds every word's neighbours once (see neighbour).
func (t *Text) neighbours() {
	t.nbr = make([][2]int32, len(t.toks))
	for i, tk := range t.toks {
		t.nbr[i] = [2]int32{-1, -1}
		if tk.kind == kWord {
			t.nbr[i] = [2]int32{int32(t.findNeighbour(i, -1)), int32(t.findNeighbour(i, 1))}
		}
	}
}

func (t *Text) findNeighbour(i, side int) int {
	if side > 0 && t.toks[i].pole.group != 0 && !t.predicative(i, 0) {
		return t.object(i)
	}
	prep := false
	for j, prev := i+side, i; j >= 0 && j < len(t.toks); j, prev = j+side, j {
		if t.toks[max(prev, j)].before >= brkComma || t.used[j] {
			return -1
		}
		tk := t.toks[j]
		switch {
		case tk.kind == kWord:
			if tk.pole.group != 0 || (side > 0 && !prep) {
				return -1
			}
			return j
		case tk.lx&lxArticle != 0 && abs(j-i) <= 3:
		case side > 0 && tk.lx&lxPreposition != 0 && !prep:
			prep = true
		default:
			return -1
		}
	}
	return -1
}

// object is the first content word after an opposite term at i that no
// copula comes before, past at most three short words: what the term acts
// on ("rejects out-of-order events", "raised the limit"). Two claims with
// one pair of terms and two objects are about two things ("rejects
// out-of-order events", "accepts hot partitions"); a term said of its
// subject ("is high priority") is followed by what it says, not by an
// object. -1 when there is none.
func (t *Text) object(i int) int {
	for j := i + 1; j < len(t.toks) && j <= i+4; j++ {
		if t.toks[j].before >= brkComma || t.used[j] {
			return -1
		}
		switch tk := t.toks[j]; {
		case tk.kind == kWord && tk.pole.group == 0:
			return j
		case tk.kind != kStop:
			return -1
		}
	}
	return -1
}

// labelsAgree reports whether the labels beside two values agree: "p99",
// "Q3", "v2", "2024", a date, in a value's segment or the one a colon
// joins to it. Two values are of one quantity only when no label of one
// kind differs ("p50" against "p99", "Q3" against "Q4").
func (t *Text) labelsAgree(q *quantity, o *Text, p *quantity) bool {
	for _, li := range q.labels {
		l := &t.quants[li]
		for _, mi := range p.labels {
			if m := &o.quants[mi]; l.fam == m.fam && l.val != m.val {
				return false
			}
		}
	}
	return true
}

// beside reports whether segment k is segment q's, or the one before it
// when a colon joins them.
func (t *Text) beside(k, q int) bool {
	return k == q || (k == q-1 && t.toks[t.segs[q].from].is(fColon) && t.segs[k].sent == t.segs[q].sent)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
