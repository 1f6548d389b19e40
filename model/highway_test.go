package model

import (
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func routeOf(owner string, length time.Duration, fallback Fallback) *Route {
	r := &Route{Owner: owner, Since: t0, Fallback: fallback}
	if length > 0 {
		d := t0.Add(length)
		r.Deadline = &d
	}
	return r
}

func TestARoutesClockAsksForOneReminderThenItsDeadline(t *testing.T) {
	withFallback := routeOf("priya", 10*time.Hour, FallbackDismiss)
	without := routeOf("priya", 10*time.Hour, "")
	for _, tc := range []struct {
		name   string
		r      *Route
		s      ConflictStatus
		at     time.Duration
		remind int
		want   Due
	}{
		{"early", withFallback, StatusEscalated, 7 * time.Hour, 0, DueNothing},
		{"a fifth left", withFallback, StatusEscalated, 8 * time.Hour, 0, DueReminder},
		{"reminded already", withFallback, StatusEscalated, 9 * time.Hour, 1, DueNothing},
		{"the deadline, with a fallback", withFallback, StatusEscalated, 10 * time.Hour, 1, DueDeadline},
		{"the deadline, never reminded", withFallback, StatusEscalated, 11 * time.Hour, 0, DueDeadline},
		{"overdue without a fallback", without, StatusEscalated, 10 * time.Hour, 1, DueOverdue},
		{"overdue told already", without, StatusEscalated, 30 * time.Hour, 2, DueNothing},
		{"a vote's deadline decides by its ballots", without, StatusPendingVote, 10 * time.Hour, 1, DueDeadline},
		{"a vote told it is overdue", without, StatusPendingVote, 10 * time.Hour, 2, DueNothing},
		{"a rework's deadline", withFallback, StatusResolving, 10 * time.Hour, 0, DueDeadline},
		{"a resolved conflict asks for nothing", withFallback, StatusResolved, 10 * time.Hour, 0, DueNothing},
		{"no deadline, nothing ever", routeOf("priya", 0, ""), StatusEscalated, 1000 * time.Hour, 0, DueNothing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *tc.r
			r.Reminded = tc.remind
			if got := r.DueAt(tc.s, t0.Add(tc.at)); got != tc.want {
				t.Errorf("DueAt = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestTimeLeftReadsAsTheQueueShowsIt(t *testing.T) {
	r := routeOf("", 8*time.Hour, "")
	for at, want := range map[time.Duration]string{
		0:                            "8h",
		5*time.Hour + 50*time.Minute: "2h 10m",
		7*time.Hour + 12*time.Minute: "48m",
		8 * time.Hour:                "overdue",
		30 * time.Hour:               "overdue",
	} {
		if got := r.DueIn(t0.Add(at)); got != want {
			t.Errorf("at +%s: %q, want %q", at, got, want)
		}
	}
	if got := routeOf("", 0, "").DueIn(t0); got != "" {
		t.Errorf("no deadline: %q", got)
	}
	if got := ShortDuration(50*time.Hour + 30*time.Minute); got != "2d 2h" {
		t.Errorf("ShortDuration = %q", got)
	}
	for d, want := range map[time.Duration]string{90 * time.Second: "1m30s", 4 * time.Hour: "4h", 48 * time.Hour: "2d", 90 * time.Minute: "1h30m"} {
		if got := FormatDeadline(d); got != want {
			t.Errorf("FormatDeadline(%s) = %q, want %q", d, got, want)
		}
		if back, err := ParseDeadline(FormatDeadline(d)); err != nil || back != d {
			t.Errorf("ParseDeadline(%q) = %s, %v", FormatDeadline(d), back, err)
		}
	}
}

func TestTheQueueOrdersWhatIsYoursThenWhatIsUrgentThenTheOldest(t *testing.T) {
	row := func(id string, epoch int64, r *Route) ConflictSummary {
		return ConflictSummary{Conflict: Conflict{ID: id, Epoch: epoch, Status: StatusEscalated, Route: r}}
	}
	now := t0.Add(9 * time.Hour)
	rows := []ConflictSummary{
		row("old-unrouted", 1, nil),
		row("urgent-later", 2, routeOf("kenji", 11*time.Hour, "")), // 2h of 11h left: urgent
		row("urgent-sooner", 3, routeOf("", 10*time.Hour, "")),     // 1h of 10h left
		row("mine-calm", 4, routeOf("priya", 48*time.Hour, "")),
		row("mine-overdue", 5, routeOf("priya", 8*time.Hour, "")),
		row("calm", 6, routeOf("kenji", 48*time.Hour, "")),
	}
	SortByUrgency(rows, "priya", now)
	var got []string
	for _, r := range rows {
		got = append(got, r.ID)
	}
	want := []string{"mine-overdue", "mine-calm", "urgent-sooner", "urgent-later", "old-unrouted", "calm"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if UrgencyOf(rows[0], "priya", now) != UrgencyYours || UrgencyOf(rows[2], "priya", now) != UrgencyUrgent ||
		UrgencyOf(rows[5], "priya", now) != UrgencyWaiting {
		t.Error("UrgencyOf disagrees with the order")
	}
}

func TestReworkTakesWhatDecidingTakes(t *testing.T) {
	p := DefaultPolicy()
	p.Recusal = false
	esc := Conflict{ID: "c1", Status: StatusEscalated, Escalation: &Escalation{By: "ana"}, Route: routeOf("priya", 0, "")}
	priya := Agent{ID: "priya", Role: "lead", Kind: KindHuman, Authority: AuthoritySenior}
	owners := p
	owners.OwnersDecide = true
	sentBack := esc
	sentBack.Status, sentBack.Rework = StatusResolving, &Escalation{By: "maya"}
	agentsOnly := Conflict{ID: "c2", Status: StatusResolving, Rework: &Escalation{By: "ana"}}
	for _, tc := range []struct {
		name string
		p    Policy
		a    Agent
		c    Conflict
		s    Strategy
		want Code
	}{
		{"an operator sends an escalation back", p, operator, esc, Rework, ""},
		{"a senior agent may not", p, analyst, esc, Rework, CodeNotPermitted},
		{"the owner may not unless owners decide", p, priya, esc, Rework, CodeNotPermitted},
		{"the owner may where owners decide", owners, priya, esc, Rework, ""},
		{"a senior agent sends a detected conflict back", p, analyst, Conflict{ID: "c3", Status: StatusDetected}, Rework, ""},
		{"a standard agent may not", p, standard, Conflict{ID: "c3", Status: StatusDetected}, Rework, CodeNotPermitted},
		{"sent back by a person, agents do not decide it", p, analyst, sentBack, LastWriteWins, CodeNotPermitted},
		{"the owner still decides it where owners decide", owners, priya, sentBack, Dismiss, ""},
		{"sent back by an agent, agents decide it", p, analyst, agentsOnly, LastWriteWins, ""},
		{"rework is offered at level 2", Policy{Level: 2, Quorum: 1, Tie: TieStay}, standard, Conflict{ID: "c3", Status: StatusDetected}, Rework, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Permit(tc.a, ConflictDetail{Conflict: tc.c, Policy: tc.p}, tc.s)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || err.Code != tc.want):
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
	if Rework.Valid() || slices.Contains(Strategies, Rework) {
		t.Error("rework is offered as a MERGE strategy")
	}
}

func TestHonestStrategyNamesTheRuleThatPicksTheWinnerElseAuthority(t *testing.T) {
	p := DefaultPolicy()
	p.Recusal = false
	score := func(f float64) *float64 { return &f }
	d := ConflictDetail{Policy: p,
		Conflict: Conflict{ID: "c1", Status: StatusEscalated, UnitA: "a", UnitB: "b"},
		A:        Side{Unit: Unit{ID: "a", Epoch: 3, Confidence: Confidence{Score: score(0.9)}}},
		B:        Side{Unit: Unit{ID: "b", Epoch: 5, Confidence: Confidence{Score: score(0.4)}}},
	}
	for winner, want := range map[string]Strategy{"a": ConfidenceWeighted, "b": LastWriteWins} {
		if got, err := HonestStrategy(operator, d, winner); err != nil || got != want {
			t.Errorf("%s: %s, %v; want %s", winner, got, err, want)
		}
	}
	d.A.Unit.Confidence.Score = score(0.4)
	if got, err := HonestStrategy(operator, d, "a"); err != nil || got != Authority {
		t.Errorf("no rule picks a: %s, %v; want authority", got, err)
	}
	if _, err := HonestStrategy(analyst, d, "a"); err == nil || err.Code != CodeNotPermitted {
		t.Errorf("an agent on an escalated conflict: %v", err)
	}
	if _, err := HonestStrategy(operator, d, "zzz"); err == nil || err.Code != CodeInvalidRequest {
		t.Errorf("a winner outside the conflict: %v", err)
	}

	// Approval keeps the proposal, or what modifies it.
	d.Conflict.Proposal = &Proposal{By: "plan", WinnerID: Ptr("b")}
	m, err := Approval(operator, d, ApproveRequest{ConflictID: "c1", Rationale: "fine"})
	if err != nil || m.Strategy != LastWriteWins || *m.Resolution.WinnerID != "b" || m.ExpectedVersion != d.Conflict.Version {
		t.Fatalf("approve: %+v, %v", m, err)
	}
	m, err = Approval(operator, d, ApproveRequest{ConflictID: "c1", Rationale: "no, A", WinnerID: Ptr("A")})
	if err != nil || m.Strategy != Authority || *m.Resolution.WinnerID != "a" {
		t.Fatalf("modify: %+v, %v", m, err)
	}
	for name, req := range map[string]ApproveRequest{
		"no rationale":          {ConflictID: "c1"},
		"both parts":            {ConflictID: "c1", Rationale: "x", WinnerID: Ptr("a"), Synthesis: Ptr("s")},
		"an empty synthesis":    {ConflictID: "c1", Rationale: "x", Synthesis: Ptr(" ")},
		"a unit of another one": {ConflictID: "c1", Rationale: "x", WinnerID: Ptr("c")},
	} {
		if _, err := Approval(operator, d, req); err == nil || err.Code != CodeInvalidRequest {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestAPolicysEscalationSettingsAreChecked(t *testing.T) {
	ok := DefaultPolicy()
	ok.EscalationTimeout, ok.EscalationFallback = time.Hour, "escalate:priya"
	if err := ok.CheckEscalation(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Policy){
		"a fallback without a timeout": func(p *Policy) { p.EscalationTimeout = 0 },
		"an unknown fallback":          func(p *Policy) { p.EscalationFallback = "coin" },
		"no ballots":                   func(p *Policy) { p.VoteMinBallots = 0 },
		"an owner of no type":          func(p *Policy) { p.Owners = map[ConflictType]string{"legal": "x"} },
		"an empty owner":               func(p *Policy) { p.Owners = map[ConflictType]string{ConflictFactual: " "} },
	} {
		p := ok
		change(&p)
		if p.CheckEscalation() == nil {
			t.Errorf("%s passed", name)
		}
	}
}
