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

// RulePick applies deterministic strategy s to a and b. The later epoch
// wins last_write_wins (the field's Lamport clock orders writes; the wall
// clock of agents does not); a unit without a score counts as 0 for
// confidence_weighted.
func RulePick(s Strategy, a, b Contender) Pick {
	switch s {
	case LastWriteWins:
		return compare(s, a.Unit.ID, b.Unit.ID, float64(a.Unit.Epoch), float64(b.Unit.Epoch), "epoch %g against %g")
	case ConfidenceWeighted:
		return compare(s, a.Unit.ID, b.Unit.ID, a.Unit.Confidence.ScoreOr(0), b.Unit.Confidence.ScoreOr(0), "confidence %.2f against %.2f")
	case EvidenceCount:
		return compare(s, a.Unit.ID, b.Unit.ID, float64(a.Support), float64(b.Support), "%g supporting against %g")
	}
	return Pick{Strategy: s, Why: "not a deterministic rule"}
}

// RulePicks returns what each deterministic rule picks, in a fixed order.
func RulePicks(a, b Contender) []Pick {
	return []Pick{
		RulePick(LastWriteWins, a, b),
		RulePick(ConfidenceWeighted, a, b),
		RulePick(EvidenceCount, a, b),
	}
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
