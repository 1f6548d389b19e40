package model

// Contender is one side of a conflict as the deterministic rules see it.
type Contender struct {
	Unit Unit
	// Support is how many supports relations from live units point at it.
	Support int
}

// Pick is what one deterministic rule chooses: a unit id, or a tie.
type Pick struct {
	Strategy Strategy `json:"strategy"`
	WinnerID string   `json:"winner_id,omitempty"`
	Tie      bool     `json:"tie"`
	// Why is a short plain account, e.g. "0.82 against 0.75".
	Why string `json:"why"`
}

// RulePick applies deterministic strategy s to a and b (its Pick).
func RulePick(s Strategy, a, b Contender) Pick {
	if pick := s.Row().Pick; pick != nil {
		return pick(a, b)
	}
	return Pick{Strategy: s, Why: "not a deterministic rule"}
}

// RulePicks returns what each deterministic rule picks, in the table's
// order.
func RulePicks(a, b Contender) []Pick {
	var out []Pick
	for _, r := range strategyRows {
		if r.Pick != nil {
			out = append(out, r.Pick(a, b))
		}
	}
	return out
}

// The deterministic rules. The later epoch wins last_write_wins (the
// field's Lamport clock orders writes; the wall clock of agents does
// not); a unit without a score counts as 0 for confidence_weighted.

func lastWrite(a, b Contender) Pick {
	return compare(LastWriteWins, a.Unit.ID, b.Unit.ID, float64(a.Unit.Epoch), float64(b.Unit.Epoch), "epoch %g against %g")
}

func higherConfidence(a, b Contender) Pick {
	return compare(ConfidenceWeighted, a.Unit.ID, b.Unit.ID, a.Unit.Confidence.ScoreOr(0), b.Unit.Confidence.ScoreOr(0), "confidence %.2f against %.2f")
}

func moreSupport(a, b Contender) Pick {
	return compare(EvidenceCount, a.Unit.ID, b.Unit.ID, float64(a.Support), float64(b.Support), "%g supporting against %g")
}

func compare(s Strategy, idA, idB string, va, vb float64, why string) Pick {
	p := Pick{Strategy: s}
	switch {
	case va > vb:
		p.WinnerID = idA
		p.Why = sprintf(why, va, vb)
	case vb > va:
		p.WinnerID = idB
		p.Why = sprintf(why, vb, va)
	default:
		p.Tie = true
		p.Why = sprintf(why, va, vb)
	}
	return p
}
