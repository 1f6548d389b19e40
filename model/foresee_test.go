package model

import (
	"slices"
	"testing"
)

func TestForeseeSaysWhatEachStrategyWillChange(t *testing.T) {
	p := DefaultPolicy()
	p.VoterRoles = []string{"lead"}
	d := ConflictDetail{
		Conflict: Conflict{ID: "c1", UnitA: "mem-1", UnitB: "mem-2", Status: StatusDetected},
		A:        Side{Unit: Unit{ID: "mem-1", Source: Source{AgentID: "ana"}}},
		B:        Side{Unit: Unit{ID: "mem-2", Source: Source{AgentID: "bob"}}},
		Policy:   p,
	}
	agents := []Agent{operator, analyst, standard, {ID: "lead-1", Role: "lead", Authority: AuthoritySenior}}
	for _, tc := range []struct {
		s          Strategy
		winner     string
		status     ConflictStatus
		superseded []string
		newUnit    bool
		notified   []string
	}{
		{ConfidenceWeighted, "mem-1", StatusResolved, []string{"mem-2"}, false, []string{"ana", "bob"}},
		{Authority, "mem-2", StatusResolved, []string{"mem-1"}, false, []string{"ana", "bob"}},
		{Synthesis, "", StatusResolved, []string{"mem-1", "mem-2"}, true, []string{"ana", "bob"}},
		{Dismiss, "", StatusResolved, nil, false, []string{"ana", "bob"}},
		{HumanEscalation, "", StatusEscalated, nil, false, []string{"ana", "bob", "maya"}},
		{Vote, "", StatusPendingVote, nil, false, []string{"ana", "bob", "lead-1"}},
	} {
		f := Foresee(d, agents, tc.s, tc.winner)
		if f.Status != tc.status || !slices.Equal(f.Superseded, tc.superseded) || f.NewUnit != tc.newUnit || !slices.Equal(f.Notified, tc.notified) {
			t.Errorf("%s: %+v", tc.s, f)
		}
	}
}
