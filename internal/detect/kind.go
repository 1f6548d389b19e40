package detect

import "arbiter/model"

// guessType suggests the conflict type of a finding from the words of the
// sentences that disagree: a priority ("P1", "urgent", "blocker"), a
// course of action ("should", "recommend", "plan", a sentence that starts
// with a verb, a decision unit), a reading of evidence ("caused by",
// "suggests", "because"); else a fact. Two values of a quantity are a
// fact unless their own segments speak of priority or plans.
func guessType(sig Signal, a *Text, sa *segment, b *Text, sb *segment) model.ConflictType {
	var cues cueSet
	if sig == SignalQuantity {
		cues = a.segCues(sa) | b.segCues(sb)
		cues &^= cueOfInterpretation
	} else {
		cues = a.sentenceCues(sa) | b.sentenceCues(sb)
	}
	for _, t := range []*Text{a, b} {
		if t.unitType == model.TypeDecision || t.unitType == model.TypeIntention {
			cues |= cueOfStrategy
		}
	}
	switch {
	case cues&cueOfPriority != 0:
		return model.ConflictPriority
	case cues&cueOfStrategy != 0:
		return model.ConflictStrategic
	case cues&cueOfInterpretation != 0:
		return model.ConflictInterpretive
	}
	return model.ConflictFactual
}

type cueSet uint8

const (
	cueOfPriority cueSet = 1 << iota
	cueOfStrategy
	cueOfInterpretation
)

// segCues are the cues of a segment's words.
func (t *Text) segCues(s *segment) cueSet { return t.cues(s.from, s.to) }

// sentenceCues are the cues of the sentence of segment k, and whether it
// starts with a verb, as an instruction does.
func (t *Text) sentenceCues(seg *segment) cueSet {
	sent := seg.sent
	from, to := -1, 0
	for k := range t.segs {
		if s := &t.segs[k]; s.sent == sent {
			if from < 0 {
				from = s.from
			}
			to = s.to
		}
	}
	c := t.cues(from, to)
	if imperativeSet[t.toks[from].w] && t.toks[from].is(fUpper) {
		c |= cueOfStrategy
	}
	return c
}

func (t *Text) cues(from, to int) cueSet {
	var c cueSet
	for i := from; i < to; i++ {
		w := t.toks[i].w
		switch {
		case cuePriority[w] || cuePriority[t.toks[i].stem]:
			c |= cueOfPriority
		case cueStrategic[w]:
			c |= cueOfStrategy
		case cueInterpret[w]:
			c |= cueOfInterpretation
		}
	}
	return c
}
