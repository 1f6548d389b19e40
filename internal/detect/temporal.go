package detect

import (
	"math"

	"arbiter/model"
)

// change is a statement that something was replaced: "switched from
// Jenkins to GitHub Actions", "Redis was replaced by DynamoDB", "/v1 is
// deprecated", "use SQS instead of Kafka", "the default region changed to
// eu-west-1".
type change struct {
	seg      int
	old      []uint32 // what was, sorted
	news     []uint32 // what is now, sorted
	subject  []uint32 // for "changed to": what changed, sorted
	ctx      []uint32 // the sentence's other words, sorted
	temporal bool     // false for "instead of", "rather than"
}

var (
	changeVerbs = wordSet(`switched switch switches migrated migrate migrates moved move moves changed change changes
		went cut upgraded upgrade downgraded shifted transitioned converted`)
	replaceVerbs = wordSet(`replaced superseded replace supersede`)
	retireWords  = wordSet(`deprecated deprecate deprecates retired retire retires sunset sunsetted discontinued decommissioned eol`)
	// stopAt ends the words of what something changed to.
	stopAt = wordSet(`for in at since after on by because with during as when and but so`)
)

// findChanges finds the change statements of each sentence.
func findChanges(t *Text) []change {
	var out []change
	for k := range t.segs {
		s := &t.segs[k]
		if s.question {
			continue
		}
		for i := s.from; i < s.to; i++ {
			w := t.toks[i].w
			var c change
			ok := false
			switch {
			case t.toks[i].lx&lxChange != 0:
				c, ok = t.changeFromTo(k, i)
			case t.toks[i].lx&lxReplace != 0:
				c, ok = t.replaced(k, i)
			case t.toks[i].lx&lxRetire != 0:
				c, ok = t.retired(k, i)
			case (w == "instead" || w == "rather") && i+1 < s.to && (t.toks[i+1].w == "of" || t.toks[i+1].w == "than"):
				c, ok = change{seg: k, old: t.wordsIn(k, i+2, s.to, true), news: t.distinctive(k, s.from, i)}, true
			}
			if ok && len(c.old)+len(c.subject) > 0 {
				c.ctx = t.context(k, c)
				out = append(out, c)
			}
		}
	}
	return out
}

// changeFromTo reads "moved from X to Y", "moved away from X" and
// "changed to Y" after the verb at i.
func (t *Text) changeFromTo(k, i int) (change, bool) {
	s := t.segs[k]
	c := change{seg: k, temporal: true}
	j := i + 1
	if j < s.to && t.toks[j].w == "away" {
		j++
	}
	switch {
	case j < s.to && t.toks[j].w == "from":
		to := j + 1
		for to < s.to && t.toks[to].w != "to" {
			to++
		}
		c.old = t.wordsIn(k, j+1, to, true)
		if to < s.to {
			c.news = t.distinctive(k, to+1, t.until(k, to+1))
		}
	case j < s.to && t.toks[j].w == "to":
		c.subject = t.wordsIn(k, s.from, i, false)
		c.news = t.values(j+1, t.until(k, j+1))
		if len(c.subject) < 2 || len(c.news) == 0 {
			return c, false
		}
	default:
		return c, false
	}
	return c, true
}

// replaced reads "X was replaced by Y", "X superseded by Y" and "replaced
// X with Y".
func (t *Text) replaced(k, i int) (change, bool) {
	s := t.segs[k]
	c := change{seg: k, temporal: true}
	if i+1 < s.to && t.toks[i+1].w == "by" {
		c.old = t.wordsIn(k, s.from, i, true)
		c.news = t.distinctive(k, i+2, t.until(k, i+2))
		return c, true
	}
	with := i + 1
	for with < s.to && t.toks[with].w != "with" {
		with++
	}
	if with == s.to {
		return c, false
	}
	c.old = t.wordsIn(k, i+1, with, true)
	c.news = t.distinctive(k, with+1, t.until(k, with+1))
	return c, true
}

// retired reads "X is deprecated", "X was retired": what replaces it is
// the names the rest of the sentence gives.
func (t *Text) retired(k, i int) (change, bool) {
	s := t.segs[k]
	c := change{seg: k, temporal: true}
	c.old = t.wordsIn(k, s.from, s.to, true)
	end := t.sentenceEnd(k)
	c.news = t.distinctive(k, s.to, end)
	return c, len(c.old) > 0
}

// until is where the words of what something changed to end.
func (t *Text) until(k, from int) int {
	s := t.segs[k]
	for j := from + 1; j < s.to; j++ {
		if stopAt[t.toks[j].w] || t.toks[j].before >= brkComma {
			return j
		}
	}
	return s.to
}

// wordsIn are the content words of tokens [from, to) of the sentence of
// segment k, sorted; markers of change and opposites left out.
func (t *Text) wordsIn(k, from, to int, names bool) []uint32 {
	var out []uint32
	for i := from; i < to; i++ {
		tk := t.toks[i]
		if tk.kind != kWord || tk.pole.group != 0 || tk.lx&(lxChange|lxReplace|lxRetire) != 0 {
			continue
		}
		if !names && t.used[i] {
			continue
		}
		out = append(out, tk.h)
	}
	return sortedSet(out)
}

// distinctive are the names among words [from, to): identifiers and
// capitalised words, or every word when there is no name.
func (t *Text) distinctive(k, from, to int) []uint32 {
	var names []uint32
	for i := from; i < to; i++ {
		tk := t.toks[i]
		if tk.kind == kWord && tk.pole.group == 0 && (tk.is(fIdent) || tk.is(fCaps) || tk.is(fUpperEnd) || containsUnderscore(tk.w)) {
			names = append(names, tk.h)
		}
	}
	if len(names) > 0 {
		return sortedSet(names)
	}
	return t.wordsIn(k, from, to, true)
}

// values are the words and numbers of tokens [from, to): numbers as
// "#" and their text, so that they meet only numbers.
func (t *Text) values(from, to int) []uint32 {
	var out []uint32
	for i := from; i < to; i++ {
		switch tk := t.toks[i]; tk.kind {
		case kWord:
			out = append(out, tk.h)
		case kNum:
			out = append(out, hash("#"+tk.w))
		}
	}
	return sortedSet(out)
}

// context is the rest of the words of a change's sentence.
func (t *Text) context(k int, c change) []uint32 {
	var out []uint32
	sent := t.segs[k].sent
	for k := range t.segs {
		s := &t.segs[k]
		if s.sent != sent {
			continue
		}
		for _, h := range s.set {
			if !has(c.old, h) && !has(c.news, h) && !has(c.subject, h) {
				out = append(out, h)
			}
		}
	}
	return sortedSet(out)
}

// compareChanges finds a claim of one unit that states what a change the
// other reports was replaced: "we use Jenkins for CI" against "we switched
// from Jenkins to GitHub Actions", whichever unit reports the change.
func compareChanges(a, b *Text) Finding {
	best := changeEvidence(b, a, true)
	if f := changeEvidence(a, b, false); f.Score > best.Score {
		best = f
	}
	return best
}

// changeEvidence is compareChanges for the changes of holder; holderLater
// says whether it is the later unit (B).
func changeEvidence(holder, other *Text, holderLater bool) Finding {
	var best Finding
	for ci := range holder.changes {
		c := &holder.changes[ci]
		for k := range other.segs {
			so := &other.segs[k]
			if so.question || so.neg%2 == 1 || len(so.set) == 0 || other.changesIn(k) {
				continue
			}
			score := changeScore(c, so, other, k)
			if score <= best.Score {
				continue
			}
			f := Finding{Signal: SignalTemporal, Score: score, DetectedBy: model.DetectedSemantic}
			if !c.temporal {
				f.Signal = SignalNegation
			}
			if holderLater {
				f.A, f.B = other.segPhrase(k), holder.segPhrase(c.seg)
				f.Type = guessType(f.Signal, other, so, holder, &holder.segs[c.seg])
			} else {
				f.A, f.B = holder.segPhrase(c.seg), other.segPhrase(k)
				f.Type = guessType(f.Signal, holder, &holder.segs[c.seg], other, so)
			}
			best = f
		}
	}
	return best
}

// changeScore is how surely a claim states what a change replaced: it
// names the old, not the new, and shares the change's context.
func changeScore(c *change, so *segment, other *Text, k int) float64 {
	if countShared(so.set, c.news) > 0 {
		return 0 // it says the new already
	}
	ctx := float64(countShared(so.set, c.ctx))
	if len(c.subject) > 0 {
		// "the default region changed to eu-west-1" against "our default
		// region is us-east-1": all of the subject, and a value of its own
		vals := other.values(other.segs[k].from, other.segs[k].to)
		if countShared(so.set, c.subject) < len(c.subject) || countShared(vals, c.news) > 0 || !other.statesValue(k) {
			return 0
		}
		return 0.65 + 0.1*math.Min(1, ctx)
	}
	n := countShared(so.set, c.old)
	if n == 0 || (len(c.old) <= 2 && n < len(c.old)) || (len(c.old) > 2 && 3*n < 2*len(c.old)) {
		return 0
	}
	return 0.5 + 0.2*math.Min(2, ctx)
}

// changesIn reports whether segment k states a change itself.
func (t *Text) changesIn(k int) bool {
	for ci := range t.changes {
		c := &t.changes[ci]
		if c.seg == k {
			return true
		}
	}
	return false
}

// statesValue reports whether segment k names a value: an identifier, a
// name, a number.
func (t *Text) statesValue(k int) bool {
	s := t.segs[k]
	for i := s.from; i < s.to; i++ {
		if tk := t.toks[i]; tk.is(fIdent) || tk.kind == kNum || (tk.is(fCaps) && tk.kind == kWord) {
			return true
		}
	}
	return false
}

func containsUnderscore(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] == '_' {
			return true
		}
	}
	return false
}
