package model

import (
	"slices"
	"testing"
)

// TestTheTableSaysWhatEachStrategyIs pins each strategy's row: who
// decides, what a decision names, its level, and what it does.
func TestTheTableSaysWhatEachStrategyIs(t *testing.T) {
	for _, c := range []struct {
		s                                   Strategy
		deterministic, needs, takes, routed bool
		level                               int
		effect                              Effect
	}{
		{LastWriteWins, true, false, true, false, 2, KeepWinner},
		{ConfidenceWeighted, true, true, true, false, 2, KeepWinner},
		{EvidenceCount, true, true, true, false, 3, KeepWinner},
		{Authority, false, true, true, false, 3, KeepWinner},
		{Synthesis, false, false, false, false, 3, NewUnit},
		{Vote, false, false, false, true, 3, ToVote},
		{HumanEscalation, false, false, false, true, 2, ToPeople},
		{Dismiss, false, false, false, false, 2, KeepBoth},
		{Rework, false, false, false, false, 2, Revised},
	} {
		s := c.s
		got := []any{s.Deterministic(), s.NeedsWinner(), s.TakesWinner(), s.Routed(), s.Level(), s.Row().Effect}
		want := []any{c.deterministic, c.needs, c.takes, c.routed, c.level, c.effect}
		if !slices.Equal(got, want) {
			t.Errorf("%s: deterministic, needs a winner, takes one, routed, level, effect = %v, want %v", s, got, want)
		}
		if s.About() == "" || s.Row().Short == "" {
			t.Errorf("%s says nothing of itself", s)
		}
	}
	if want := []Strategy{LastWriteWins, ConfidenceWeighted, EvidenceCount, Authority, Synthesis, Vote, HumanEscalation, Dismiss}; !slices.Equal(Strategies, want) {
		t.Errorf("MERGE offers %v, want %v", Strategies, want)
	}
	if want := []Strategy{LastWriteWins, ConfidenceWeighted, EvidenceCount}; !slices.Equal(DeterministicStrategies(), want) {
		t.Errorf("the rules are %v, want %v", DeterministicStrategies(), want)
	}
	if Strategy("coin_flip").Valid() || Strategy("coin_flip").Deterministic() || Rework.Valid() {
		t.Error("an unknown strategy, or rework, is offered by MERGE")
	}
}

// TestEachRulePicksByItsOwnMeasure holds RulePicks to the rules' order
// and to what each compares.
func TestEachRulePicksByItsOwnMeasure(t *testing.T) {
	a := Contender{Unit: Unit{ID: "a", Epoch: 9, Confidence: Confidence{Score: Ptr(0.4)}}, Support: 3}
	b := Contender{Unit: Unit{ID: "b", Epoch: 4, Confidence: Confidence{Score: Ptr(0.8)}}, Support: 3}
	picks := RulePicks(a, b)
	var got []string
	for _, p := range picks {
		got = append(got, string(p.Strategy)+"="+p.WinnerID)
		if p != RulePick(p.Strategy, a, b) {
			t.Errorf("RulePick(%s) = %+v, RulePicks says %+v", p.Strategy, RulePick(p.Strategy, a, b), p)
		}
	}
	if want := []string{"last_write_wins=a", "confidence_weighted=b", "evidence_count="}; !slices.Equal(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
	if !picks[2].Tie {
		t.Errorf("equal support is not a tie: %+v", picks[2])
	}
	if p := RulePick(Authority, a, b); p.WinnerID != "" || p.Tie {
		t.Errorf("authority picked by rule: %+v", p)
	}
}
