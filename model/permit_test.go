package model

import "testing"

var (
	operator = Agent{ID: "maya", Role: "operator", Kind: KindHuman, Authority: AuthorityHumanOperator}
	analyst  = Agent{ID: "ana", Role: "analyst", Kind: KindAgent, Authority: AuthoritySenior}
	standard = Agent{ID: "bob", Role: "researcher", Kind: KindAgent, Authority: AuthorityStandard}
	observer = Agent{ID: "obs", Role: "observer", Kind: KindAgent, Authority: AuthorityObserver}
	// A program at authority 10 is not a human operator.
	bot = Agent{ID: "bot", Role: "operator", Kind: KindAgent, Authority: AuthorityHumanOperator}
)

func TestPermitFollowsLevelStatusAndAuthority(t *testing.T) {
	p := DefaultPolicy()
	p.AuthorityRoles = map[ConflictType]string{ConflictFactual: "analyst"}
	level2 := p
	level2.Level = 2
	open := Conflict{ID: "c1", Type: ConflictFactual, Status: StatusDetected}
	with := func(s ConflictStatus) Conflict { c := open; c.Status = s; return c }
	strategic := open
	strategic.Type = ConflictStrategic
	for _, tc := range []struct {
		name string
		p    Policy
		a    Agent
		c    Conflict
		s    Strategy
		want Code // "" for permitted
	}{
		{"a senior agent decides an open conflict", p, analyst, open, ConfidenceWeighted, ""},
		{"a standard agent may only escalate at level 3", p, standard, open, ConfidenceWeighted, CodeNotPermitted},
		{"a standard agent may escalate", p, standard, open, HumanEscalation, ""},
		{"a standard agent decides at level 2", level2, standard, open, LastWriteWins, ""},
		{"level 2 offers no vote", level2, analyst, open, Vote, CodeUnsupportedOperation},
		{"level 2 offers dismiss", level2, analyst, open, Dismiss, ""},
		{"an observer only reads", p, observer, open, HumanEscalation, CodeNotPermitted},
		{"nobody decides a resolved conflict", p, operator, with(StatusResolved), Dismiss, CodeInvalidTransition},
		{"only votes settle a pending vote", p, operator, with(StatusPendingVote), LastWriteWins, CodeInvalidTransition},
		{"an escalated conflict waits for a person", p, analyst, with(StatusEscalated), LastWriteWins, CodeNotPermitted},
		{"a program of authority 10 is no person", p, bot, with(StatusEscalated), LastWriteWins, CodeNotPermitted},
		{"a human operator decides an escalation", p, operator, with(StatusEscalated), LastWriteWins, ""},
		{"an escalation is not escalated again", p, operator, with(StatusEscalated), HumanEscalation, CodeInvalidTransition},
		{"the designated role decides by authority", p, analyst, open, Authority, ""},
		{"another role may not use authority", p, Agent{ID: "s", Role: "strategist", Authority: AuthoritySenior}, open, Authority, CodeNotPermitted},
		{"a type without a role: only a person uses authority", p, analyst, strategic, Authority, CodeNotPermitted},
		{"a human operator uses authority on any type", p, operator, strategic, Authority, ""},
		{"an unknown strategy", p, operator, open, Strategy("coin"), CodeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Permit(tc.a, ConflictDetail{Conflict: tc.c, Policy: tc.p}, tc.s)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || err.Code != tc.want):
				t.Errorf("got %v, want %s", err, tc.want)
			case err != nil && (err.Operation != OpMerge || err.Message == ""):
				t.Errorf("error %+v does not say what MERGE refused", err)
			}
		})
	}
}

func TestChoicesOfferEveryStrategyWithItsVerdict(t *testing.T) {
	c := Conflict{ID: "c1", Type: ConflictFactual, Status: StatusEscalated}
	choices := Choices(operator, ConflictDetail{Conflict: c, Policy: DefaultPolicy()})
	if len(choices) != len(Strategies) {
		t.Fatalf("%d choices, want %d", len(choices), len(Strategies))
	}
	for i, ch := range choices {
		if ch.Strategy != Strategies[i] {
			t.Errorf("choice %d is %s, want %s", i, ch.Strategy, Strategies[i])
		}
		if refused := ch.Err != nil; refused != (ch.Strategy == HumanEscalation) {
			t.Errorf("%s on an escalation: refused %v", ch.Strategy, refused)
		}
	}
}

func TestTheOwnerOfAnEscalationDecidesItWhereThePolicySays(t *testing.T) {
	lead := Agent{ID: "lead-1", Role: "lead", Kind: KindHuman, Authority: AuthorityStandard}
	c := Conflict{ID: "c1", Type: ConflictFactual, Status: StatusEscalated, Route: &Route{Owner: "lead-1"}}
	p := DefaultPolicy()
	err := Permit(lead, ConflictDetail{Conflict: c, Policy: p}, Dismiss)
	if err == nil || err.Code != CodeNotPermitted || err.Message != "c1 is escalated; only a human operator (authority 10) may decide it" {
		t.Errorf("an owner without owners_decide: %v", err)
	}
	p.OwnersDecide = true
	if err := Permit(lead, ConflictDetail{Conflict: c, Policy: p}, Dismiss); err != nil {
		t.Errorf("the owner with owners_decide: %v", err)
	}
	err = Permit(analyst, ConflictDetail{Conflict: c, Policy: p}, Dismiss)
	if err == nil || err.Code != CodeNotPermitted || err.Message != "c1 is escalated; only lead-1, its owner, or a human operator (authority 10) may decide it" {
		t.Errorf("another agent: %v", err)
	}
	if err := Permit(operator, ConflictDetail{Conflict: c, Policy: p}, Dismiss); err != nil {
		t.Errorf("a human operator answers anything: %v", err)
	}
}

func TestRecusalAndOperatorOverride(t *testing.T) {
	p := DefaultPolicy()
	d := ConflictDetail{
		Conflict: Conflict{ID: "c1", Type: ConflictFactual, Status: StatusDetected},
		A:        Side{Unit: Unit{ID: "mem-1", Source: Source{AgentID: analyst.ID}}},
		B:        Side{Unit: Unit{ID: "mem-2", Source: Source{AgentID: "bob"}}},
		Policy:   p,
	}
	if err := Permit(analyst, d, ConfidenceWeighted); err == nil || err.Code != CodeNotPermitted {
		t.Errorf("an author deciding their own conflict: %v, want NOT_PERMITTED", err)
	}
	if err := Permit(analyst, d, HumanEscalation); err != nil {
		t.Errorf("an author escalating their own conflict: %v", err)
	}
	if !p.Recused(analyst, d) || p.Recused(operator, d) {
		t.Error("only an author is recused")
	}
	d.Policy.Recusal = false
	if err := Permit(analyst, d, ConfidenceWeighted); err != nil {
		t.Errorf("without recusal an author decides: %v", err)
	}
	d.Conflict.Status = StatusPendingVote
	if err := Permit(operator, d, Dismiss); err == nil || err.Code != CodeInvalidTransition {
		t.Errorf("an operator on a pending vote without override: %v", err)
	}
	d.Policy.OperatorOverride = true
	for s, want := range map[Strategy]Code{Dismiss: "", ConfidenceWeighted: "", Vote: CodeInvalidTransition, HumanEscalation: CodeInvalidTransition} {
		err := Permit(operator, d, s)
		if (want == "") != (err == nil) || (err != nil && err.Code != want) {
			t.Errorf("override with %s: %v, want %q", s, err, want)
		}
	}
	if err := Permit(analyst, d, Dismiss); err == nil {
		t.Error("an agent overrode a vote")
	}
}

func TestPolicyAllowsAndVoters(t *testing.T) {
	p := DefaultPolicy()
	for _, s := range Strategies {
		for level := 1; level <= 3; level++ {
			p.Level = level
			if got, want := p.Allows(s), level >= s.Level(); got != want {
				t.Errorf("level %d allows %s: %v, want %v", level, s, got, want)
			}
		}
	}
	p.VoterRoles = []string{"lead"}
	lead := Agent{ID: "l", Role: "lead", Authority: AuthoritySenior}
	junior := Agent{ID: "j", Role: "lead", Authority: AuthorityStandard}
	if !p.MayVote(lead) || p.MayVote(junior) || p.MayVote(analyst) {
		t.Error("votes must need the least authority and one of the roles")
	}
	p.VoterRoles = nil
	if !p.MayVote(analyst) {
		t.Error("without roles any agent of enough authority votes")
	}
}

func TestAStrategyTheFieldRefusesIsRefusedWithWhy(t *testing.T) {
	p := DefaultPolicy()
	p.Refused = map[Strategy]string{Synthesis: "a new memory needs an embedding"}
	d := ConflictDetail{Conflict: Conflict{ID: "c1", Type: ConflictFactual, Status: StatusEscalated}, Policy: p}
	err := Permit(operator, d, Synthesis)
	if err == nil || err.Code != CodeUnsupportedOperation || err.Message != "synthesis is not offered here: a new memory needs an embedding" {
		t.Errorf("refused strategy: %v", err)
	}
	if err := Permit(operator, d, Dismiss); err != nil {
		t.Errorf("another strategy: %v", err)
	}
}
