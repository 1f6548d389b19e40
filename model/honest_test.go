package model

import "testing"

func TestHonestStrategyNamesTheRuleThatPicksTheUnitElseAuthority(t *testing.T) {
	p := DefaultPolicy()
	d := ConflictDetail{
		Conflict: Conflict{ID: "c1", Type: ConflictFactual, Status: StatusEscalated, UnitA: "a", UnitB: "b"},
		A:        Side{Unit: Unit{ID: "a", Epoch: 3, Confidence: Confidence{Score: Ptr(0.9)}}},
		B:        Side{Unit: Unit{ID: "b", Epoch: 7, Confidence: Confidence{Score: Ptr(0.4)}}},
		Policy:   p,
	}
	for winner, want := range map[string]Strategy{"a": ConfidenceWeighted, "b": LastWriteWins} {
		if s, err := HonestStrategy(operator, d, winner); err != nil || s != want {
			t.Errorf("keep %s: %s, %v; want %s", winner, s, err, want)
		}
	}
	d.B.Unit.Epoch = 3 // no rule picks b now
	d.B.Supporters = nil
	if s, err := HonestStrategy(operator, d, "b"); err != nil || s != Authority {
		t.Errorf("keep b when no rule picks it: %s, %v; want authority", s, err)
	}
	if _, err := HonestStrategy(analyst, d, "a"); err == nil || err.Code != CodeNotPermitted {
		t.Errorf("an agent on an escalation: %v", err)
	}
	if _, err := HonestStrategy(operator, d, "z"); err == nil || err.Code != CodeInvalidRequest {
		t.Errorf("a unit of another conflict: %v", err)
	}
}
