package model

import "testing"

func TestTurnOfSaysWhoseMoveItIs(t *testing.T) {
	p := DefaultPolicy()
	p.VoterRoles = []string{"lead"}
	lead := Agent{ID: "lead-1", Role: "lead", Kind: KindHuman, Authority: AuthoritySenior}
	esc := ConflictSummary{Conflict: Conflict{ID: "c1", Status: StatusEscalated}, AgentA: "ana", AgentB: "bob"}
	vote := ConflictSummary{Conflict: Conflict{ID: "c2", Status: StatusPendingVote}, AgentA: "ana", AgentB: "lead-1"}
	vote2 := ConflictSummary{Conflict: Conflict{ID: "c3", Status: StatusPendingVote}, AgentA: "ana", AgentB: "bob"}
	for _, tc := range []struct {
		name  string
		p     Policy
		a     Agent
		s     ConflictSummary
		voted bool
		want  Turn
	}{
		{"an operator decides an escalation", p, operator, esc, false, TurnDecide},
		{"a lead does not", p, lead, esc, false, TurnNone},
		{"a lead votes", p, lead, vote2, false, TurnVote},
		{"once", p, lead, vote2, true, TurnNone},
		{"not on their own unit", p, lead, vote, false, TurnNone},
		{"an operator does not vote among leads", p, operator, vote2, false, TurnNone},
		{"an author of an escalation is recused", p, Agent{ID: "ana", Kind: KindHuman, Authority: 10}, esc, false, TurnNone},
	} {
		if got := TurnOf(tc.p, tc.a, tc.s, tc.voted); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	p.OperatorOverride = true
	if TurnOf(p, operator, vote2, false) != TurnDecide {
		t.Error("with an override an operator may close a vote")
	}
	agents := []Agent{operator, lead, analyst}
	if got := WhoActs(DefaultPolicy(), agents, esc); got != "a human operator (maya)" {
		t.Errorf("WhoActs escalation = %q", got)
	}
	pl := DefaultPolicy()
	pl.VoterRoles = []string{"lead"}
	if got := WhoActs(pl, agents, vote); got != "nobody registered can (the eligible voters would)" {
		t.Errorf("WhoActs vote = %q", got)
	}
	routed := esc
	routed.Route = &Route{Owner: "maya"}
	if got := WhoActs(DefaultPolicy(), agents, routed); got != "maya (its owner)" {
		t.Errorf("WhoActs routed to maya = %q", got)
	}
	lee := Agent{ID: "lee", Kind: KindHuman, Role: "operator", Authority: 10}
	if got := WhoActs(DefaultPolicy(), append(agents, lee), routed); got != "maya (its owner) or a human operator (lee)" {
		t.Errorf("WhoActs routed to maya with lee = %q", got)
	}
}
