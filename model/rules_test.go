package model

import "testing"

func contender(id string, epoch int64, score *float64, support int) Contender {
	return Contender{Unit: Unit{ID: id, Epoch: epoch, Confidence: Confidence{Score: score}}, Support: support}
}

func TestEachDeterministicRulePicksItsWinnerOrATie(t *testing.T) {
	for _, tc := range []struct {
		name     string
		strategy Strategy
		a, b     Contender
		winner   string
		tie      bool
		why      string
	}{
		{"the later epoch wins", LastWriteWins, contender("a", 4, nil, 0), contender("b", 9, nil, 0), "b", false, "epoch 9 against 4"},
		{"the earlier epoch loses even when it is A", LastWriteWins, contender("a", 12, nil, 0), contender("b", 9, nil, 0), "a", false, "epoch 12 against 9"},
		{"the same epoch ties", LastWriteWins, contender("a", 7, nil, 0), contender("b", 7, nil, 0), "", true, "epoch 7 against 7"},
		{"the higher score wins", ConfidenceWeighted, contender("a", 1, Ptr(0.82), 0), contender("b", 2, Ptr(0.75), 0), "a", false, "confidence 0.82 against 0.75"},
		{"no score counts as zero", ConfidenceWeighted, contender("a", 1, nil, 0), contender("b", 2, Ptr(0.1), 0), "b", false, "confidence 0.10 against 0.00"},
		{"equal scores tie", ConfidenceWeighted, contender("a", 1, Ptr(0.5), 0), contender("b", 2, Ptr(0.5), 0), "", true, "confidence 0.50 against 0.50"},
		{"more support wins", EvidenceCount, contender("a", 1, nil, 1), contender("b", 2, nil, 3), "b", false, "3 supporting against 1"},
		{"no support on either side ties", EvidenceCount, contender("a", 1, nil, 0), contender("b", 2, nil, 0), "", true, "0 supporting against 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := RulePick(tc.strategy, tc.a, tc.b)
			if p.WinnerID != tc.winner || p.Tie != tc.tie || p.Why != tc.why || p.Strategy != tc.strategy {
				t.Errorf("RulePick = %+v, want winner %q tie %v why %q", p, tc.winner, tc.tie, tc.why)
			}
		})
	}
}

func TestOnlyDeterministicRulesPick(t *testing.T) {
	a, b := contender("a", 1, Ptr(0.9), 5), contender("b", 2, Ptr(0.1), 0)
	for _, s := range Strategies {
		p := RulePick(s, a, b)
		if s.Deterministic() == (p.WinnerID == "" && !p.Tie) {
			t.Errorf("%s: pick %+v; deterministic %v", s, p, s.Deterministic())
		}
	}
	picks := RulePicks(a, b)
	if len(picks) != 3 || picks[0].Strategy != LastWriteWins || picks[1].Strategy != ConfidenceWeighted || picks[2].Strategy != EvidenceCount {
		t.Errorf("RulePicks = %+v, want last write, confidence, evidence in that order", picks)
	}
}

func TestStrategiesKnowWhatTheyNeed(t *testing.T) {
	for _, tc := range []struct {
		s                                       Strategy
		level                                   int
		needsWinner, deterministic, resolves, x bool
	}{
		{LastWriteWins, 2, false, true, true, false},
		{ConfidenceWeighted, 2, true, true, true, false},
		{HumanEscalation, 2, false, false, false, false},
		{Dismiss, 2, false, false, true, true},
		{EvidenceCount, 3, true, true, true, false},
		{Authority, 3, true, false, true, false},
		{Synthesis, 3, false, false, true, false},
		{Vote, 3, false, false, false, false},
	} {
		if got := [...]any{tc.s.Level(), tc.s.NeedsWinner(), tc.s.Deterministic(), tc.s.Resolves(), tc.s.Extension()}; got != [...]any{tc.level, tc.needsWinner, tc.deterministic, tc.resolves, tc.x} {
			t.Errorf("%s: level, needs winner, deterministic, resolves, extension = %v", tc.s, got)
		}
		if !tc.s.Valid() || tc.s.About() == "" {
			t.Errorf("%s: not valid or not described", tc.s)
		}
	}
	if Strategy("coin_flip").Valid() {
		t.Error("an unknown strategy is valid")
	}
}

func TestOnlyLiveUnitsStand(t *testing.T) {
	for _, s := range UnitStatuses {
		want := s != UnitSuperseded && s != UnitRetracted
		if s.Stands() != want {
			t.Errorf("%s stands: %v, want %v", s, s.Stands(), want)
		}
	}
}
