package review_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
)

// The highway: escalations routed to owners with deadlines and
// fallbacks, proposals approved or modified, conflicts sent back for
// rework, and the sweeps that execute deadlines, all on a clock the test
// moves (no sleeps).

// owner is a person who is not a human operator: a team lead the policy
// routes escalations to.
const owner = "lead-person"

// testClock is a clock the test sets.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// highway is a field of policy p (change applied to rt.Policy) with a
// person of authority 6 (owner) registered, and a service on a test
// clock.
func highway(t *testing.T, change func(*model.Policy)) (*rt.Field, *review.Service, *testClock) {
	t.Helper()
	p := rt.Policy()
	if change != nil {
		change(&p)
	}
	f := rt.New(t, p)
	clk := &testClock{t: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	svc := review.New(f.Store).WithClock(clk.now)
	if _, err := svc.Register(context.Background(), model.Agent{ID: owner, Role: "lead", Kind: model.KindHuman,
		Authority: model.AuthoritySenior}); err != nil {
		t.Fatal(err)
	}
	return f, svc, clk
}

// escalate escalates a fresh factual contradiction as senior1, routed as
// r, with proposal p (nil for none).
func escalate(t *testing.T, f *rt.Field, svc *review.Service, r *model.Routing, p *model.Proposed) (rt.Pair, model.MergeResponse) {
	t.Helper()
	pair := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	resp, err := svc.Merge(context.Background(), senior1, model.MergeRequest{ConflictID: pair.Conflict,
		Strategy: model.HumanEscalation, Resolution: model.MergeResolution{Rationale: "a person must look"},
		Routing: r, Proposal: p})
	if err != nil {
		t.Fatalf("escalate %s: %v", pair.Conflict, err)
	}
	return pair, resp
}

func sweep(t *testing.T, svc *review.Service) model.SweepReport {
	t.Helper()
	rep, err := svc.Sweep(context.Background())
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	return rep
}

// wantActions checks the kinds of a sweep's actions, in order.
func wantActions(t *testing.T, rep model.SweepReport, kinds ...string) {
	t.Helper()
	var got []string
	for _, a := range rep.Actions {
		got = append(got, a.ConflictID+":"+a.Kind)
	}
	if len(got) != len(kinds) {
		t.Fatalf("the sweep did %v, want %d actions of kinds %v", got, len(kinds), kinds)
	}
	for i, k := range kinds {
		if rep.Actions[i].Kind != k {
			t.Fatalf("the sweep did %v, want kinds %v", got, kinds)
		}
	}
}

// notes lists the notifications about conflict of event.
func notes(t *testing.T, f *rt.Field, conflict, event string) []model.Notification {
	t.Helper()
	var out []model.Notification
	for _, n := range f.Detail(t, conflict).Notifications {
		if n.Event == event {
			out = append(out, n)
		}
	}
	return out
}

// actionNeeded keeps the notices that ask their agent to act.
func actionNeeded(ns []model.Notification) []model.Notification {
	var out []model.Notification
	for _, n := range ns {
		if n.RequiresAction {
			out = append(out, n)
		}
	}
	return out
}

func recipients(ns []model.Notification) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.AgentID)
	}
	return sorted(out...)
}

// timeoutEvent returns the one event of conflict logged with "outcome":
// "timeout", failing unless there is exactly one.
func timeoutEvent(t *testing.T, f *rt.Field, conflict string) (model.Event, map[string]any) {
	t.Helper()
	var found []model.Event
	var payload map[string]any
	for _, e := range f.Detail(t, conflict).Events {
		var p map[string]any
		json.Unmarshal(e.Payload, &p)
		if p["outcome"] == "timeout" {
			found, payload = append(found, e), p
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s has %d timeout events, want exactly 1: %+v", conflict, len(found), found)
	}
	if found[0].AgentID != model.FallbackAgent {
		t.Fatalf("the timeout event is by %q, want %q", found[0].AgentID, model.FallbackAgent)
	}
	return found[0], payload
}

func TestAnEscalationIsRoutedByThePolicyToItsOwnerAndToldItsDeadline(t *testing.T) {
	f, svc, clk := highway(t, func(p *model.Policy) {
		p.Owners = map[model.ConflictType]string{model.ConflictFactual: owner}
		p.EscalationTimeout, p.EscalationFallback = 4*time.Hour, model.FallbackDismiss
	})
	pair, resp := escalate(t, f, svc, nil, nil)
	r := resp.Conflict.Route
	if r == nil || r.Owner != owner || r.Deadline == nil || !r.Deadline.Equal(clk.now().Add(4*time.Hour)) ||
		r.Fallback != model.FallbackDismiss || !r.Since.Equal(clk.now()) {
		t.Fatalf("route %+v, want %s with the policy's 4h and dismiss", r, owner)
	}
	esc := notes(t, f, pair.Conflict, model.EventConflictEscalated)
	wantStrings(t, "told of the escalation", recipients(esc), sorted(owner, senior1, senior2, standard))
	for _, n := range esc {
		if n.RequiresAction == (n.AgentID == senior1) || !strings.Contains(n.Summary, "escalated to "+owner) ||
			!strings.Contains(n.Summary, "2026-11-20 13:00 UTC") || !strings.Contains(n.Summary, "then dismiss") {
			t.Errorf("notification %q does not say who, when and what then", n.Summary)
		}
	}

	// --to routes elsewhere, with its own deadline and fallback.
	_, resp = escalate(t, f, svc, &model.Routing{To: operator, Deadline: "90s", Fallback: "last_write_wins"}, nil)
	if r := resp.Conflict.Route; r.Owner != operator || r.Length() != 90*time.Second || r.Fallback != model.Fallback(model.LastWriteWins) {
		t.Fatalf("route %+v, want operator, 90s, last_write_wins", r)
	}
}

func TestRoutingRefusesWhatCannotBeRouted(t *testing.T) {
	f, svc, _ := highway(t, nil)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		r    model.Routing
		code model.Code
	}{
		"an agent is not a person":            {model.Routing{To: senior2}, model.CodeInvalidRequest},
		"an owner who is not registered":      {model.Routing{To: "nobody"}, model.CodeAgentNotRegistered},
		"a fallback without any deadline":     {model.Routing{Fallback: "dismiss"}, model.CodeInvalidRequest},
		"a deadline that does not parse":      {model.Routing{Deadline: "soon"}, model.CodeInvalidRequest},
		"an unknown fallback":                 {model.Routing{Deadline: "1h", Fallback: "coin"}, model.CodeInvalidRequest},
		"escalate: to someone not registered": {model.Routing{Deadline: "1h", Fallback: "escalate:nobody"}, model.CodeAgentNotRegistered},
	} {
		t.Run(name, func(t *testing.T) {
			p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
			before := rt.Snap(t, f.Path)
			_, err := svc.Merge(ctx, senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.HumanEscalation,
				Resolution: model.MergeResolution{Rationale: "route it"}, Routing: &tc.r})
			rt.WantError(t, err, tc.code, model.OpMerge, model.Errorf("", tc.code, "", "").Recoverable)
			if d := before.Diff(rt.Snap(t, f.Path)); d != "" {
				t.Fatalf("a refused escalation wrote:\n%s", d)
			}
		})
	}
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	_, err := svc.Merge(ctx, senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.LastWriteWins,
		Resolution: model.MergeResolution{Rationale: "now"}, Routing: &model.Routing{Deadline: "1h"}})
	rt.WantError(t, err, model.CodeInvalidRequest, model.OpMerge, true)
	_, err = svc.Merge(ctx, senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Rework,
		Resolution: model.MergeResolution{Rationale: "back"}})
	if pe := rt.WantError(t, err, model.CodeInvalidRequest, model.OpMerge, true); !strings.Contains(pe.SuggestedAction, "arbiter rework") {
		t.Errorf("merge with rework does not point to arbiter rework: %v", pe)
	}
}

func TestAPolicysOwnerWhoIsNotAPersonIsPassedOver(t *testing.T) {
	f, svc, _ := highway(t, func(p *model.Policy) {
		p.Owners = map[model.ConflictType]string{model.ConflictFactual: "not-yet-hired"}
	})
	pair, resp := escalate(t, f, svc, nil, nil)
	if r := resp.Conflict.Route; r == nil || r.Owner != "" {
		t.Fatalf("route %+v, want any human operator", r)
	}
	esc := notes(t, f, pair.Conflict, model.EventConflictEscalated)
	wantStrings(t, "told", recipients(esc), sorted(operator, senior1, senior2, standard))
	if !strings.Contains(esc[0].Summary, "not-yet-hired") {
		t.Errorf("the notification does not say the policy's owner was passed over: %q", esc[0].Summary)
	}
}

func TestTheOwnerAnswersOnlyWhereThePolicyLetsOwnersDecideAndOthersAreToldWhoMay(t *testing.T) {
	for _, decide := range []bool{false, true} {
		f, svc, _ := highway(t, func(p *model.Policy) { p.OwnersDecide = decide })
		ctx := context.Background()
		if _, err := svc.Register(ctx, model.Agent{ID: "other-person", Role: "lead", Kind: model.KindHuman, Authority: 6}); err != nil {
			t.Fatal(err)
		}
		pair, _ := escalate(t, f, svc, &model.Routing{To: owner}, nil)
		_, err := svc.Merge(ctx, "other-person", req(pair.Conflict, model.Dismiss, "", "not theirs"))
		pe := rt.WantError(t, err, model.CodeNotPermitted, model.OpMerge, false)
		if decide != strings.Contains(pe.Message, owner) || !strings.Contains(pe.Message, "human operator") {
			t.Errorf("owners decide %v: the refusal names %q", decide, pe.Message)
		}
		_, err = svc.Merge(ctx, owner, req(pair.Conflict, model.Dismiss, "", "mine to answer"))
		if decide && err != nil {
			t.Fatalf("the owner is refused although owners decide: %v", err)
		}
		if !decide {
			rt.WantError(t, err, model.CodeNotPermitted, model.OpMerge, false)
			// A human operator answers anything.
			merge(t, f, operator, req(pair.Conflict, model.Dismiss, "", "an operator answers"))
		}
	}
}

func TestAFallbackExecutesOnceAtItsDeadlineAfterOneReminder(t *testing.T) {
	f, svc, clk := highway(t, nil)
	pair, resp := escalate(t, f, svc, &model.Routing{To: owner, Deadline: "1h", Fallback: "dismiss"}, nil)
	version := resp.Conflict.Version

	clk.advance(30 * time.Minute)
	wantActions(t, sweep(t, svc))
	clk.advance(18 * time.Minute) // 12 minutes left: less than a fifth
	rep := sweep(t, svc)
	wantActions(t, rep, model.SweepReminder)
	if got := rep.Actions[0].NotifiedAgents; len(got) != 1 || got[0] != owner {
		t.Fatalf("reminded %v, want the owner", got)
	}
	d := f.Detail(t, pair.Conflict)
	if d.Conflict.Version != version || d.Conflict.Route.Reminded != 1 {
		t.Fatalf("after the reminder: version %d (was %d), reminded %d", d.Conflict.Version, version, d.Conflict.Route.Reminded)
	}
	if n := notes(t, f, pair.Conflict, model.EventConflictReminder); len(n) != 1 || !strings.Contains(n[0].Summary, "12m left of 1h") {
		t.Fatalf("reminders %+v", n)
	}
	wantActions(t, sweep(t, svc)) // once

	clk.advance(12 * time.Minute) // the deadline
	rep = sweep(t, svc)
	wantActions(t, rep, model.SweepFallback)
	c := f.Detail(t, pair.Conflict).Conflict
	r := c.Resolution
	if c.Status != model.StatusResolved || r.Strategy != model.Dismiss || r.ResolvedBy != model.FallbackAgent ||
		c.Version != version+1 || c.Route != nil || !strings.Contains(r.Rationale, "deadline") {
		t.Fatalf("after the deadline: %+v %+v", c, r)
	}
	e, p := timeoutEvent(t, f, pair.Conflict)
	if e.Operation != model.OpMerge || p["status"] != string(model.StatusResolved) || p["fallback"] != "dismiss" {
		t.Fatalf("timeout event %s %v", e.Operation, p)
	}
	// The owner it waited for and the agent that escalated it are told
	// with the authors; the owner's reminder is answered.
	res := notes(t, f, pair.Conflict, model.EventConflictResolved)
	wantStrings(t, "told it resolved", recipients(res), sorted(owner, senior1, senior2, standard))
	for _, n := range res {
		if n.AgentID == owner && !strings.HasSuffix(n.Summary, model.NoLongerNeeded) {
			t.Errorf("the owner's notice does not say no action is needed any more: %q", n.Summary)
		}
	}
	wantStrings(t, "told of the timeout", recipients(notes(t, f, pair.Conflict, model.EventConflictTimeout)), nil)
	wantUnitStatus(t, f, pair.A, model.UnitActive)
	wantUnitStatus(t, f, pair.B, model.UnitActive)

	clk.advance(time.Hour)
	wantActions(t, sweep(t, svc))
}

func TestEachFallbackKind(t *testing.T) {
	t.Run("a rule decides", func(t *testing.T) {
		f, svc, clk := highway(t, nil)
		pair, _ := escalate(t, f, svc, &model.Routing{Deadline: "2h", Fallback: "last_write_wins"}, nil)
		clk.advance(2 * time.Hour)
		rep := sweep(t, svc)
		wantActions(t, rep, model.SweepFallback)
		c := f.Detail(t, pair.Conflict).Conflict
		if c.Resolution == nil || c.Resolution.Strategy != model.LastWriteWins || *c.Resolution.WinnerID != pair.B ||
			c.Resolution.ResolvedBy != model.FallbackAgent {
			t.Fatalf("resolution %+v, want last_write_wins for B by the fallback", c.Resolution)
		}
		wantUnitStatus(t, f, pair.A, model.UnitSuperseded)
		// No owner: every human operator waited, and hears of it.
		wantStrings(t, "told of the timeout", recipients(notes(t, f, pair.Conflict, model.EventConflictTimeout)), nil)
	})
	t.Run("a rule that ties leaves it with any human operator, without deadline", func(t *testing.T) {
		f, svc, clk := highway(t, nil)
		pair, resp := escalate(t, f, svc, &model.Routing{To: owner, Deadline: "2h", Fallback: "confidence_weighted"}, nil)
		clk.advance(3 * time.Hour)
		wantActions(t, sweep(t, svc), model.SweepFallback)
		c := f.Detail(t, pair.Conflict).Conflict
		if c.Status != model.StatusEscalated || c.Route == nil || c.Route.Owner != "" || c.Route.Deadline != nil ||
			c.Escalation.By != model.FallbackAgent || c.Version != resp.Conflict.Version+1 || !strings.Contains(c.Escalation.Reason, "tie") {
			t.Fatalf("after a tie: %+v route %+v", c, c.Route)
		}
		told := recipients(append(notes(t, f, pair.Conflict, model.EventConflictEscalated)[3:],
			notes(t, f, pair.Conflict, model.EventConflictTimeout)...))
		wantStrings(t, "told it stays", told, sorted(operator, owner, senior1, senior2, standard))
		timeoutEvent(t, f, pair.Conflict)
		clk.advance(48 * time.Hour)
		wantActions(t, sweep(t, svc))
	})
	t.Run("rework sends it back to its authors", func(t *testing.T) {
		f, svc, clk := highway(t, nil)
		pair, _ := escalate(t, f, svc, &model.Routing{To: owner, Deadline: "2h", Fallback: "rework"}, nil)
		clk.advance(2 * time.Hour)
		wantActions(t, sweep(t, svc), model.SweepFallback)
		c := f.Detail(t, pair.Conflict).Conflict
		if c.Status != model.StatusResolving || c.Rework == nil || c.Rework.By != model.FallbackAgent || c.Route == nil || c.Route.Owner != "" {
			t.Fatalf("after a rework fallback: %+v", c)
		}
		e, _ := timeoutEvent(t, f, pair.Conflict)
		if e.Operation != model.OpRework {
			t.Fatalf("the fallback logged %s, want REWORK", e.Operation)
		}
		wantStrings(t, "sent back to", recipients(actionNeeded(notes(t, f, pair.Conflict, model.EventConflictRework))), authors)
		wantStrings(t, "told it went back", recipients(notes(t, f, pair.Conflict, model.EventConflictRework)), sorted(owner, senior1, senior2, standard))
	})
	t.Run("escalate:ID routes it on with a fresh deadline and no fallback", func(t *testing.T) {
		f, svc, clk := highway(t, nil)
		pair := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
		escalateThis(t, svc, pair.Conflict, &model.Routing{To: owner, Deadline: "2h", Fallback: "escalate:" + operator},
			&model.Proposed{WinnerID: &pair.A})
		clk.advance(2*time.Hour + time.Minute)
		at := clk.now()
		wantActions(t, sweep(t, svc), model.SweepFallback)
		c := f.Detail(t, pair.Conflict).Conflict
		r := c.Route
		if c.Status != model.StatusEscalated || r == nil || r.Owner != operator || r.Fallback != "" ||
			r.Deadline == nil || !r.Deadline.Equal(at.Add(2*time.Hour)) {
			t.Fatalf("after escalate:%s: %+v route %+v", operator, c, r)
		}
		if c.Proposal == nil || *c.Proposal.WinnerID != pair.A {
			t.Fatalf("the proposal was lost on the way: %+v", c.Proposal)
		}
		esc := notes(t, f, pair.Conflict, model.EventConflictEscalated)
		if last := esc[len(esc)-1]; !last.RequiresAction || !strings.Contains(last.Summary, "escalated to "+operator) {
			t.Fatalf("the new owner was not told: %+v", esc)
		}
		// The owner it leaves is told where it went, and that nothing is
		// asked of them any more.
		for _, n := range esc {
			if n.AgentID == owner && n.ID == esc[len(esc)-1].ID {
				t.Fatalf("the last escalation notice went to the owner it leaves")
			}
		}
		var left []model.Notification
		for _, n := range esc {
			if n.AgentID == owner && strings.Contains(n.Summary, "from "+owner) {
				left = append(left, n)
			}
		}
		if len(left) != 1 || left[0].RequiresAction || !strings.HasSuffix(left[0].Summary, model.NoLongerNeeded) {
			t.Fatalf("the owner it leaves was told %+v", left)
		}
		wantStrings(t, "told of the timeout", recipients(notes(t, f, pair.Conflict, model.EventConflictTimeout)), nil)
		// The fresh deadline has no fallback: it ends overdue, once.
		clk.advance(2 * time.Hour)
		wantActions(t, sweep(t, svc), model.SweepOverdue)
		wantActions(t, sweep(t, svc))
	})
	t.Run("escalate:ID to someone no longer a person leaves it with any operator", func(t *testing.T) {
		f, svc, clk := highway(t, func(p *model.Policy) {
			p.EscalationTimeout, p.EscalationFallback = time.Hour, "escalate:left-the-company"
		})
		pair, _ := escalate(t, f, svc, nil, nil) // the policy's fallback is checked when it executes
		clk.advance(time.Hour)
		rep := sweep(t, svc)
		wantActions(t, rep, model.SweepFallback)
		if c := f.Detail(t, pair.Conflict).Conflict; c.Status != model.StatusEscalated || c.Route.Owner != "" || c.Route.Deadline != nil {
			t.Fatalf("%+v", c.Route)
		}
		if !strings.Contains(rep.Actions[0].Result, "left-the-company") {
			t.Errorf("the sweep does not say why: %q", rep.Actions[0].Result)
		}
	})
	t.Run("without a fallback it is reminded, then overdue, and stays", func(t *testing.T) {
		f, svc, clk := highway(t, func(p *model.Policy) { p.EscalationTimeout = 10 * time.Hour })
		pair, resp := escalate(t, f, svc, &model.Routing{To: owner}, nil)
		clk.advance(9 * time.Hour)
		wantActions(t, sweep(t, svc), model.SweepReminder)
		clk.advance(time.Hour)
		rep := sweep(t, svc)
		wantActions(t, rep, model.SweepOverdue)
		c := f.Detail(t, pair.Conflict).Conflict
		if c.Status != model.StatusEscalated || c.Version != resp.Conflict.Version || c.Route.Reminded != 2 ||
			c.Route.DueIn(clk.now()) != "overdue" {
			t.Fatalf("overdue: %+v %+v", c, c.Route)
		}
		wantStrings(t, "told it is overdue", recipients(notes(t, f, pair.Conflict, model.EventConflictOverdue)), []string{owner})
		clk.advance(24 * time.Hour)
		wantActions(t, sweep(t, svc))
		merge(t, f, operator, req(pair.Conflict, model.Dismiss, "", "late, but answered"))
	})
}

func escalateThis(t *testing.T, svc *review.Service, conflict string, r *model.Routing, p *model.Proposed) model.MergeResponse {
	t.Helper()
	resp, err := svc.Merge(context.Background(), senior1, model.MergeRequest{ConflictID: conflict,
		Strategy: model.HumanEscalation, Resolution: model.MergeResolution{Rationale: "a person must look"},
		Routing: r, Proposal: p})
	if err != nil {
		t.Fatalf("escalate %s: %v", conflict, err)
	}
	return resp
}

// voteWithDeadline puts a fresh contradiction to a vote with a deadline.
func voteWithDeadline(t *testing.T, f *rt.Field, svc *review.Service, deadline, fallback string) rt.Pair {
	t.Helper()
	pair := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	_, err := svc.Merge(context.Background(), senior1, model.MergeRequest{ConflictID: pair.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "let the leads decide"},
		Routing:    &model.Routing{Deadline: deadline, Fallback: model.Fallback(fallback)}})
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

func TestAVotesDeadline(t *testing.T) {
	ctx := context.Background()
	ballot := func(t *testing.T, svc *review.Service, voter, conflict, choice string) {
		t.Helper()
		if _, err := svc.Vote(ctx, voter, model.VoteRequest{ConflictID: conflict, Choice: choice, Rationale: "I read both"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("enough ballots: their majority prevails", func(t *testing.T) {
		f, svc, clk := highway(t, func(p *model.Policy) { p.VoteMinBallots = 2 })
		pair := voteWithDeadline(t, f, svc, "1h", "dismiss")
		ballot(t, svc, lead1, pair.Conflict, "A")
		ballot(t, svc, lead2, pair.Conflict, "A")
		clk.advance(time.Hour)
		wantActions(t, sweep(t, svc), model.SweepFallback)
		c := f.Detail(t, pair.Conflict).Conflict
		if r := c.Resolution; r == nil || r.Strategy != model.Vote || *r.WinnerID != pair.A || r.ResolvedBy != model.FallbackAgent {
			t.Fatalf("resolution %+v, want a vote for A by the fallback", r)
		}
		wantStrings(t, "told the vote closed", recipients(notes(t, f, pair.Conflict, model.EventVoteClosed)), sorted(lead1, lead2))
		timeoutEvent(t, f, pair.Conflict)
	})
	t.Run("too few ballots: the fallback executes", func(t *testing.T) {
		f, svc, clk := highway(t, func(p *model.Policy) { p.VoteMinBallots = 2 })
		pair := voteWithDeadline(t, f, svc, "1h", "dismiss")
		ballot(t, svc, lead1, pair.Conflict, "A")
		clk.advance(50 * time.Minute)
		rep := sweep(t, svc)
		wantActions(t, rep, model.SweepReminder)
		// The voters who have not voted are reminded.
		wantStrings(t, "reminded", rep.Actions[0].NotifiedAgents, sorted(lead2, lead3, owner, operator, senior1, senior2))
		clk.advance(10 * time.Minute)
		wantActions(t, sweep(t, svc), model.SweepFallback)
		c := f.Detail(t, pair.Conflict).Conflict
		if r := c.Resolution; r == nil || r.Strategy != model.Dismiss || r.ResolvedBy != model.FallbackAgent {
			t.Fatalf("resolution %+v, want the fallback's dismissal", r)
		}
	})
	t.Run("a tie is no majority: the fallback executes", func(t *testing.T) {
		f, svc, clk := highway(t, nil)
		pair := voteWithDeadline(t, f, svc, "1h", "last_write_wins")
		ballot(t, svc, lead1, pair.Conflict, "A")
		ballot(t, svc, lead2, pair.Conflict, "B")
		clk.advance(time.Hour)
		wantActions(t, sweep(t, svc), model.SweepFallback)
		if r := f.Detail(t, pair.Conflict).Conflict.Resolution; r == nil || r.Strategy != model.LastWriteWins {
			t.Fatalf("resolution %+v", r)
		}
	})
	t.Run("no majority and no fallback: overdue, and the vote stays open", func(t *testing.T) {
		f, svc, clk := highway(t, nil)
		pair := voteWithDeadline(t, f, svc, "1h", "")
		clk.advance(2 * time.Hour)
		wantActions(t, sweep(t, svc), model.SweepOverdue)
		if c := f.Detail(t, pair.Conflict).Conflict; c.Status != model.StatusPendingVote {
			t.Fatalf("status %s", c.Status)
		}
		wantActions(t, sweep(t, svc))
	})
}

func TestApprovingAProposalCarriesItOutWithTheHonestStrategy(t *testing.T) {
	ctx := context.Background()
	f, svc, _ := highway(t, nil)
	// B is later and better supported: every rule picks B; nothing picks A.
	pair := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.4}, rt.Side{Score: 0.9, Supporters: 1})

	t.Run("a proposed winner a rule picks", func(t *testing.T) {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.4}, rt.Side{Score: 0.9})
		escalateThis(t, svc, p.Conflict, nil, &model.Proposed{WinnerID: &p.B})
		resp, err := svc.Approve(ctx, operator, model.ApproveRequest{ConflictID: p.Conflict, Rationale: "agreed"})
		if err != nil {
			t.Fatal(err)
		}
		r := resp.Conflict.Resolution
		if r.Strategy != model.LastWriteWins || *r.WinnerID != p.B || r.ResolvedBy != operator ||
			!strings.Contains(r.Rationale, "Approves senior-1's proposal: keep B") {
			t.Fatalf("resolution %+v", r)
		}
	})
	t.Run("a proposed winner no rule picks is decided by authority", func(t *testing.T) {
		escalateThis(t, svc, pair.Conflict, nil, &model.Proposed{WinnerID: &pair.A})
		d := f.Detail(t, pair.Conflict)
		if got, err := model.HonestStrategy(rt.Agents[0], d, pair.A); err != nil || got != model.Authority {
			t.Fatalf("HonestStrategy = %s, %v; want authority", got, err)
		}
		// Someone who may not decide it is refused, naming who may.
		_, err := svc.Approve(ctx, owner, model.ApproveRequest{ConflictID: pair.Conflict, Rationale: "me?"})
		rt.WantError(t, err, model.CodeNotPermitted, model.OpMerge, false)
		resp, err := svc.Approve(ctx, operator, model.ApproveRequest{ConflictID: pair.Conflict, Rationale: "the older count holds"})
		if err != nil {
			t.Fatal(err)
		}
		if r := resp.Conflict.Resolution; r.Strategy != model.Authority || *r.WinnerID != pair.A {
			t.Fatalf("resolution %+v", r)
		}
	})
	t.Run("modify: keep the other unit", func(t *testing.T) {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.4}, rt.Side{Score: 0.9})
		escalateThis(t, svc, p.Conflict, nil, &model.Proposed{WinnerID: &p.A})
		resp, err := svc.Approve(ctx, operator, model.ApproveRequest{ConflictID: p.Conflict, Rationale: "the other one", WinnerID: model.Ptr("B")})
		if err != nil {
			t.Fatal(err)
		}
		if r := resp.Conflict.Resolution; *r.WinnerID != p.B || !strings.Contains(r.Rationale, "Modifies senior-1's proposal (keep A") {
			t.Fatalf("resolution %+v", r)
		}
	})
	t.Run("a proposed synthesis, approved and modified", func(t *testing.T) {
		for _, edit := range []bool{false, true} {
			p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
			escalateThis(t, svc, p.Conflict, nil, &model.Proposed{Synthesis: model.Ptr("Both hold, for different payments.")})
			req := model.ApproveRequest{ConflictID: p.Conflict, Rationale: "yes"}
			want := "Both hold, for different payments."
			if edit {
				want = "Both hold; the gate is redefined."
				req.Synthesis = &want
			}
			resp, err := svc.Approve(ctx, operator, req)
			if err != nil {
				t.Fatal(err)
			}
			r := resp.Conflict.Resolution
			if r.Strategy != model.Synthesis || f.Unit(t, *r.SynthesisUnitID).Content != want {
				t.Fatalf("resolution %+v", r)
			}
			if note := map[bool]string{false: "Approves", true: "Modifies"}[edit]; !strings.Contains(r.Rationale, note) {
				t.Errorf("rationale %q does not say %s", r.Rationale, note)
			}
		}
	})
	t.Run("nothing to approve", func(t *testing.T) {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
		escalateThis(t, svc, p.Conflict, nil, nil)
		_, err := svc.Approve(ctx, operator, model.ApproveRequest{ConflictID: p.Conflict, Rationale: "yes"})
		rt.WantError(t, err, model.CodeInvalidRequest, model.OpMerge, true)
	})
	t.Run("a proposal changed since it was read is not approved", func(t *testing.T) {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
		resp := escalateThis(t, svc, p.Conflict, nil, &model.Proposed{WinnerID: &p.A})
		merge(t, f, operator, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Vote,
			Resolution: model.MergeResolution{Rationale: "vote instead"}})
		_, err := svc.Approve(ctx, operator, model.ApproveRequest{ConflictID: p.Conflict, Rationale: "yes",
			ExpectedVersion: resp.Conflict.Version})
		rt.WantError(t, err, model.CodeInvalidTransition, model.OpMerge, true)
	})
}

func TestReworkSendsAConflictBackAndTheAuthorsRevisionSettlesIt(t *testing.T) {
	ctx := context.Background()
	f, svc, _ := highway(t, nil)
	pair, esc := escalate(t, f, svc, nil, nil)

	_, err := svc.Rework(ctx, standard, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "redo"})
	rt.WantError(t, err, model.CodeNotPermitted, model.OpRework, false)
	_, err = svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: " "})
	rt.WantError(t, err, model.CodeInvalidRequest, model.OpRework, true)

	resp, err := svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: pair.Conflict,
		Rationale: "Count only settled payments, then record it again."})
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Conflict
	if c.Status != model.StatusResolving || c.Version != esc.Conflict.Version+1 || c.Rework == nil || c.Rework.By != operator ||
		c.Route == nil || c.Route.Owner != operator {
		t.Fatalf("sent back: %+v", c)
	}
	rw := notes(t, f, pair.Conflict, model.EventConflictRework)
	wantStrings(t, "told", recipients(rw), sorted(operator, senior1, senior2, standard))
	rw = actionNeeded(rw)
	wantStrings(t, "sent back to", recipients(rw), authors)
	for _, n := range rw {
		if !n.RequiresAction || !strings.Contains(n.Summary, "Count only settled payments") || n.MemoryUnitID == nil {
			t.Errorf("directive %+v", n)
		}
	}
	wantLogged(t, f, pair.Conflict, c.Rework.Epoch, model.OpRework, operator, sorted(operator, senior1, senior2, standard))
	_, err = svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "again"})
	rt.WantError(t, err, model.CodeInvalidTransition, model.OpRework, true)
	// While the authors revise, agents do not decide behind the person.
	_, err = svc.Merge(ctx, senior1, req(pair.Conflict, model.LastWriteWins, "", "quick"))
	rt.WantError(t, err, model.CodeNotPermitted, model.OpMerge, false)

	// B's author revises B: it no longer contradicts A.
	res, err := svc.Record(ctx, standard, model.RecordRequest{Type: model.TypeFinding, Content: "Counted settled payments only.",
		Intent:     model.Intent{Purpose: "revise after rework"},
		Confidence: model.Confidence{Score: model.Ptr(0.7), Reasoning: "recounted"},
		Relations:  []model.Relation{{Type: model.RelSupersedes, TargetID: pair.B}}})
	if err != nil {
		t.Fatal(err)
	}
	c = f.Detail(t, pair.Conflict).Conflict
	r := c.Resolution
	if c.Status != model.StatusResolved || r.Strategy != model.Rework || r.WinnerID != nil || r.ResolvedBy != standard ||
		!strings.Contains(r.Rationale, res.UnitID) || r.EpochResolved != res.Epoch {
		t.Fatalf("after the revision: %+v %+v", c, r)
	}
	wantUnitStatus(t, f, pair.B, model.UnitSuperseded)
	wantUnitStatus(t, f, pair.A, model.UnitActive)
	if len(res.Conflicts) != 0 {
		t.Fatalf("the revision opened %v", res.Conflicts)
	}
	wantStrings(t, "told it resolved", recipients(notes(t, f, pair.Conflict, model.EventConflictResolved)), sorted(operator, senior1, senior2, standard))
	// A revision's resolution is not taken back.
	_, err = svc.Reopen(ctx, operator, model.ReopenRequest{ConflictID: pair.Conflict, Rationale: "undo"})
	rt.WantError(t, err, model.CodeInvalidTransition, model.OpReopen, true)
}

func TestARevisionThatStillContradictsOpensTheConflictThatContinuesIt(t *testing.T) {
	ctx := context.Background()
	f, svc, _ := highway(t, nil)
	pair := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	// A senior agent sends a detected conflict back (no escalation).
	if _, err := svc.Rework(ctx, senior1, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "cite your sources"}); err != nil {
		t.Fatal(err)
	}
	// A's author revises A, and still disagrees with B.
	res, err := svc.Record(ctx, senior2, model.RecordRequest{Type: model.TypeFinding, Content: "Still 40 ms, now with sources.",
		Intent:     model.Intent{Purpose: "revise after rework"},
		Confidence: model.Confidence{Score: model.Ptr(0.8), Reasoning: "three sources"},
		Relations: []model.Relation{{Type: model.RelSupersedes, TargetID: pair.A},
			{Type: model.RelContradicts, TargetID: pair.B, Description: "still disagrees"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0].ReworkOf != pair.Conflict || res.Conflicts[0].UnitA != pair.B ||
		res.Conflicts[0].UnitB != res.UnitID {
		t.Fatalf("the revision opened %+v, want one conflict continuing %s", res.Conflicts, pair.Conflict)
	}
	next := res.Conflicts[0].ID
	old := f.Detail(t, pair.Conflict).Conflict
	if old.Status != model.StatusResolved || old.Resolution.Strategy != model.Rework || !strings.Contains(old.Resolution.Rationale, next) {
		t.Fatalf("the old conflict: %+v %+v", old, old.Resolution)
	}
	if got := f.Detail(t, next).Conflict; got.ReworkOf != pair.Conflict || got.Status != model.StatusDetected {
		t.Fatalf("the new conflict: %+v", got)
	}
	wantUnitStatus(t, f, pair.A, model.UnitSuperseded)
	wantUnitStatus(t, f, pair.B, model.UnitContested)
	wantUnitStatus(t, f, res.UnitID, model.UnitContested)
}

func TestAReworksOwnDeadlineAndFallback(t *testing.T) {
	ctx := context.Background()
	f, svc, clk := highway(t, func(p *model.Policy) {
		p.EscalationTimeout, p.EscalationFallback = 4*time.Hour, model.FallbackRework
	})
	pair, _ := escalate(t, f, svc, nil, nil)
	_, err := svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "redo", Fallback: model.FallbackRework, Deadline: "1h"})
	rt.WantError(t, err, model.CodeInvalidRequest, model.OpRework, true)
	// The policy's rework fallback does not apply to a rework: it keeps
	// the deadline only.
	resp, err := svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "redo"})
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.Conflict.Route; r.Length() != 4*time.Hour || r.Fallback != "" {
		t.Fatalf("route %+v, want 4h and no fallback", r)
	}

	p2, _ := escalate(t, f, svc, &model.Routing{Deadline: "8h", Fallback: "dismiss"}, nil)
	if _, err := svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: p2.Conflict, Rationale: "redo", Deadline: "2h", Fallback: "dismiss"}); err != nil {
		t.Fatal(err)
	}
	clk.advance(3*time.Hour + 15*time.Minute)
	rep := sweep(t, svc)
	// The second rework's fallback dismisses it (its deadline came
	// first); the first one's authors are reminded, 45 minutes left.
	wantActions(t, rep, model.SweepFallback, model.SweepReminder)
	if rep.Actions[0].ConflictID != p2.Conflict || rep.Actions[1].ConflictID != pair.Conflict {
		t.Fatalf("actions %+v", rep.Actions)
	}
	wantStrings(t, "reminded", rep.Actions[1].NotifiedAgents, authors)
	if r := f.Detail(t, p2.Conflict).Conflict.Resolution; r == nil || r.Strategy != model.Dismiss || r.ResolvedBy != model.FallbackAgent {
		t.Fatalf("resolution %+v", r)
	}
}

func TestTheOwnerSendsBackWhatIsRoutedToThemWhereOwnersDecide(t *testing.T) {
	f, svc, _ := highway(t, func(p *model.Policy) { p.OwnersDecide = true })
	pair, _ := escalate(t, f, svc, &model.Routing{To: owner}, nil)
	if _, err := svc.Rework(context.Background(), owner, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "revise"}); err != nil {
		t.Fatalf("the owner may answer: %v", err)
	}
	// ...and, while the authors revise, still decides it.
	merge(t, f, owner, req(pair.Conflict, model.Dismiss, "", "not a real conflict after all"))
}

func TestEveryStrategyStillWorksOnAnEscalatedConflict(t *testing.T) {
	f, svc, clk := highway(t, nil)
	for _, s := range []model.Strategy{model.LastWriteWins, model.Authority, model.Synthesis, model.Vote, model.Dismiss} {
		pair := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
		escalateThis(t, svc, pair.Conflict, &model.Routing{To: owner, Deadline: "1h", Fallback: "dismiss"}, &model.Proposed{WinnerID: &pair.A})
		r := req(pair.Conflict, s, "", "decided by a person")
		switch s {
		case model.Authority:
			r.Resolution.WinnerID = &pair.A
		case model.Synthesis:
			r.Resolution.Synthesis = model.Ptr("Both, reconciled.")
		}
		resp, err := svc.Merge(context.Background(), operator, r)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if resp.Conflict.Route != nil && s != model.Vote {
			t.Errorf("%s left the route %+v on a resolved conflict", s, resp.Conflict.Route)
		}
	}
	// Nothing decided is left for the deadlines.
	clk.advance(2 * time.Hour)
	wantActions(t, sweep(t, svc))
}

func TestOnlyAHumanOperatorChangesThePolicyAndTheOperatorsAreTold(t *testing.T) {
	ctx := context.Background()
	f, svc, _ := highway(t, nil)
	set := func(p *model.Policy) error {
		p.Owners[model.ConflictFactual] = owner
		p.EscalationTimeout, p.EscalationFallback, p.OwnersDecide = 4*time.Hour, model.FallbackDismiss, true
		return nil
	}
	_, err := svc.UpdatePolicy(ctx, senior1, set)
	rt.WantError(t, err, model.CodeNotPermitted, model.OpPolicy, false)
	_, err = svc.UpdatePolicy(ctx, operator, func(p *model.Policy) error { p.EscalationFallback = "dismiss"; p.EscalationTimeout = 0; return nil })
	rt.WantError(t, err, model.CodeInvalidRequest, model.OpPolicy, true)
	p, err := svc.UpdatePolicy(ctx, operator, set)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.Policy(ctx); got.Owners[model.ConflictFactual] != owner || got.EscalationTimeout != 4*time.Hour || !got.OwnersDecide || !p.OwnersDecide {
		t.Fatalf("stored policy %+v", got)
	}
	ns, err := svc.Inbox(ctx, operator, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := ns[len(ns)-1]; last.Event != model.EventPolicyChanged || !strings.Contains(last.Summary, "owner of factual conflicts: "+owner) {
		t.Fatalf("the operator was told %+v", last)
	}
	_ = f
}

func TestTheHistoryReadsAsSentences(t *testing.T) {
	ctx := context.Background()
	f, svc, clk := highway(t, nil)
	pair := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, pair.Conflict, &model.Routing{To: owner, Deadline: "10h", Fallback: "escalate:" + operator},
		&model.Proposed{WinnerID: &pair.B})
	clk.advance(8 * time.Hour)
	sweep(t, svc) // reminder
	clk.advance(2 * time.Hour)
	sweep(t, svc) // escalate:operator
	if _, err := svc.Rework(ctx, operator, model.ReworkRequest{ConflictID: pair.Conflict, Rationale: "Recount it."}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Record(ctx, standard, model.RecordRequest{Type: model.TypeFinding, Content: "Recounted.",
		Intent: model.Intent{Purpose: "revise"}, Confidence: model.Confidence{Score: model.Ptr(0.6), Reasoning: "recount"},
		Relations: []model.Relation{{Type: model.RelSupersedes, TargetID: pair.B}}}); err != nil {
		t.Fatal(err)
	}
	d := f.Detail(t, pair.Conflict)
	var got []string
	for _, e := range d.Events {
		s, err := model.EventSentence(d.Conflict, e)
		if err != nil {
			t.Fatalf("event %d: %v", e.ID, err)
		}
		got = append(got, s)
	}
	want := []string{
		"standard opened it: " + pair.B + " contradicts " + pair.A,
		"senior-1 escalated it to lead-person (deadline 2026-11-20 19:00 UTC, in 10h; then escalate:operator); proposes: keep B (" + pair.B + ")",
		"lead-person reminded: 2h left",
		"the deadline passed (fallback escalate:operator): it went on to operator (deadline 2026-11-21 05:00 UTC, in 10h; then nothing: overdue)",
		"operator sent it back to its authors for rework, without a deadline: Recount it.",
		"standard revised their unit with ",
	}
	if len(got) != len(want) {
		t.Fatalf("history:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("event %d reads %q, want %q", i, got[i], want[i])
		}
	}
}
