package detect

import (
	"math/bits"

	"arbiter/model"
)

// compareClaims finds two claims about the same thing, one the negation of
// the other: one negates it ("is not encrypted"), or says it with the
// opposite term ("disabled" of "enabled"). A negated opposite agrees with
// its other side ("not enabled", "disabled").
func compareClaims(a, b *Text, p params) Finding {
	var best Finding
	for i := range a.claims() {
		sa := a.seg(i)
		if sa.question || len(sa.set) < 2 {
			continue
		}
		for j := range b.claims() {
			sb := b.seg(j)
			if sb.question || len(sb.set) < 2 {
				continue
			}
			flipA, flipB := prefixFlips(sa, sb), prefixFlips(sb, sa)
			shared := countShared(sa.set, sb.set) + flipA + flipB
			sim := 2 * float64(shared) / float64(len(sa.set)+len(sb.set))
			if sim < p.claim || sim <= best.Score {
				continue
			}
			sig, ok := opposed(a, sa, flipA, b, sb, flipB)
			if !ok || contrasted(a, a.segWords(sa), b, b.segWords(sb)) {
				continue
			}
			best = Finding{Signal: sig, Score: sim, DetectedBy: model.DetectedSemantic,
				A: a.phrase(sa.from, sa.to), B: b.phrase(sb.from, sb.to), Type: guessType(sig, a, sa, b, sb)}
		}
	}
	return best
}

// opposed reports whether two claims about the same thing say it with
// opposite polarity, and by what: opposite terms of a pair both use, a
// negated term, a negator. A negator counts only when what it negates is
// in the other claim too (so "do not raise prices" is not opposed to
// "prices stay"); a negative term of a pair only one claim uses does not.
func opposed(a *Text, sa *segment, flipA int, b *Text, sb *segment, flipB int) (Signal, bool) {
	both := sa.poles & sb.poles &^ (sa.mixed | sb.mixed)
	diff := (sa.minus ^ sb.minus) & both
	if diff != 0 || (flipA+flipB)%2 == 1 {
		// a negator, or a negative term said of the subject that the other
		// claim lacks, undoes the opposite: "not encrypted" and "encryption
		// is disabled"
		onlyA := bits.OnesCount64(sa.minus & sa.said &^ sa.mixed &^ both)
		onlyB := bits.OnesCount64(sb.minus & sb.said &^ sb.mixed &^ both)
		switch {
		case (sa.neg+onlyA)%2 != (sb.neg+onlyB)%2:
			return "", false
		case diff&(sa.negated|sb.negated) == 0:
			return SignalOpposites, true
		case sa.temporal || sb.temporal:
			return SignalTemporal, true
		}
		return SignalNegation, true
	}
	if (sa.polarity()+flipA)%2 == (sb.polarity()+flipB)%2 {
		return "", false
	}
	if !a.negationShared(sa, sb) && !b.negationShared(sb, sa) {
		return "", false
	}
	if (sb.temporal && sb.neg%2 == 1) || (sa.temporal && sa.neg%2 == 1) {
		return SignalTemporal, true
	}
	return SignalNegation, true
}

// negationShared reports whether a negator of s is followed, in s, by a
// word of o: the negated claim is o's.
func (t *Text) negationShared(s, o *segment) bool {
	for _, i := range s.negAt {
		for j := i + 1; j < s.to; j++ {
			if tk := t.toks[j]; tk.kind == kWord && !t.used[j] && has(o.set, t.wordHash(j)) {
				return true
			}
		}
	}
	return false
}

// prefixFlips counts the words of s made opposite by a prefix whose word
// without it is in o ("unavailable" against "available").
func prefixFlips(s, o *segment) int {
	n := 0
	for _, x := range s.alts {
		if has(o.set, x.base) && !has(o.set, x.word) {
			n++
		}
	}
	return n
}

// segWords are the tokens of a segment's content words.
func (t *Text) segWords(s *segment) []int {
	var out []int
	for i := s.from; i < s.to; i++ {
		if t.toks[i].kind == kWord && !t.used[i] {
			out = append(out, i)
		}
	}
	return out
}
