package review_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

// The rule of who is told (model.Concerned, the table "Who is told" in
// docs/escalations.md), row by row, on the engine the tests run on (both:
// TestMain runs them again on PostgreSQL).

// told returns the notices of conflict written by step, which it runs.
func told(t *testing.T, f *rt.Field, conflict string, step func()) []model.Notification {
	t.Helper()
	before := len(f.Detail(t, conflict).Notifications)
	step()
	return f.Detail(t, conflict).Notifications[before:]
}

// noticeTo returns the one notice in ns to agent, failing without one.
func noticeTo(t *testing.T, ns []model.Notification, agent string) model.Notification {
	t.Helper()
	var found []model.Notification
	for _, n := range ns {
		if n.AgentID == agent {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s got %d notices of the step, want 1: %+v", agent, len(found), ns)
	}
	return found[0]
}

func wantIn(t *testing.T, n model.Notification, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(n.Summary, p) {
			t.Errorf("%s's notice %q does not say %q", n.AgentID, n.Summary, p)
		}
	}
}

// Row: a decision of a conflict nobody escalated tells both authors, with
// the decider, the strategy, the outcome and the rationale.
func TestToldADecisionTellsTheAuthorsWhy(t *testing.T) {
	f, _, _ := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	ns := told(t, f, p.Conflict, func() {
		merge(t, f, senior1, req(p.Conflict, model.ConfidenceWeighted, p.A, "the lab run is controlled"))
	})
	wantStrings(t, "told", recipients(ns), authors)
	for _, n := range ns {
		wantIn(t, n, "resolved by "+senior1, "(confidence_weighted)", p.A+" prevails", p.B+" superseded", "Why: the lab run is controlled")
	}
}

// Rows: an escalation tells the authors, the owner (asked to act) and the
// escalating agent; without an owner every human operator. Its decision
// tells all of them again, the proposer what became of the proposal, and
// the owner that nothing is asked of them any more.
func TestToldAnEscalationAndItsDecision(t *testing.T) {
	f, svc, _ := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	ns := told(t, f, p.Conflict, func() {
		escalateThis(t, svc, p.Conflict, &model.Routing{To: owner}, &model.Proposed{WinnerID: &p.A})
	})
	wantStrings(t, "told of the escalation", recipients(ns), sorted(owner, senior1, senior2, standard))
	if !noticeTo(t, ns, owner).RequiresAction || noticeTo(t, ns, senior1).RequiresAction {
		t.Errorf("the owner must be asked to act and the escalating agent only told: %+v", ns)
	}
	ns = told(t, f, p.Conflict, func() {
		if _, err := svc.Approve(context.Background(), operator, model.ApproveRequest{ConflictID: p.Conflict, Rationale: "the proposal holds"}); err != nil {
			t.Fatal(err)
		}
	})
	wantStrings(t, "told of the decision", recipients(ns), sorted(owner, senior1, senior2, standard))
	for _, n := range ns {
		wantIn(t, n, "resolved by "+operator, p.A+" prevails", senior1+"'s proposal", "was approved", "Why: ")
		if n.RequiresAction || n.Event != model.EventConflictResolved {
			t.Errorf("a decision asks nothing: %+v", n)
		}
	}
	wantIn(t, noticeTo(t, ns, owner), model.NoLongerNeeded)

	// Modified: the person keeps the other unit.
	q := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, q.Conflict, nil, &model.Proposed{WinnerID: &q.A})
	ns = told(t, f, q.Conflict, func() {
		if _, err := svc.Approve(context.Background(), operator, model.ApproveRequest{ConflictID: q.Conflict, Rationale: "B is right", WinnerID: &q.B}); err != nil {
			t.Fatal(err)
		}
	})
	wantIn(t, noticeTo(t, ns, senior1), "was modified", q.B+" prevails")
	// No owner: every human operator was asked, and hears it is done.
	wantIn(t, noticeTo(t, ns, operator), model.NoLongerNeeded)
}

// Row: routed elsewhere (escalate:ID at the deadline), the owner it leaves
// is told where it went; the new owner is asked.
func TestToldTheOwnerItLeaves(t *testing.T) {
	f, svc, clk := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, p.Conflict, &model.Routing{To: owner, Deadline: "1h", Fallback: "escalate:" + operator}, nil)
	clk.advance(time.Hour + time.Minute)
	ns := told(t, f, p.Conflict, func() { wantActions(t, sweep(t, svc), model.SweepFallback) })
	wantStrings(t, "told", recipients(ns), sorted(operator, owner, senior1, senior2, standard))
	left := noticeTo(t, ns, owner)
	if left.RequiresAction {
		t.Errorf("the owner it leaves is still asked: %+v", left)
	}
	wantIn(t, left, "escalated to "+operator+" (from "+owner+")", model.NoLongerNeeded)
	if !noticeTo(t, ns, operator).RequiresAction {
		t.Errorf("the new owner is not asked to act")
	}
}

// Rows: a vote tells the authors and the eligible voters when it opens;
// when it closes, whoever cast a ballot hears it closed, with the tally,
// and everyone else concerned that it resolved.
func TestToldAVote(t *testing.T) {
	f, _, _ := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	ns := told(t, f, p.Conflict, func() { merge(t, f, senior1, req(p.Conflict, model.Vote, "", "let the leads decide")) })
	// highway's owner is a lead of authority 6: a voter too.
	voters := append([]string{owner}, rt.Voters...)
	wantStrings(t, "told it opened", recipients(ns), sorted(append(authors, voters...)...))
	vote(t, f, lead1, p.Conflict, "A")
	vote(t, f, lead2, p.Conflict, "A")
	ns = told(t, f, p.Conflict, func() { vote(t, f, lead3, p.Conflict, "B") })
	wantStrings(t, "told it closed", recipients(ns), sorted(append(authors, voters...)...))
	for _, n := range ns {
		want := model.EventConflictResolved
		if n.AgentID == lead1 || n.AgentID == lead2 || n.AgentID == lead3 {
			want = model.EventVoteClosed
			wantIn(t, n, "2 for A, 1 for B of quorum 3")
		}
		if n.Event != want {
			t.Errorf("%s got %s, want %s", n.AgentID, n.Event, want)
		}
		wantIn(t, n, "(vote)", p.A+" prevails", "Why: Vote closed 2–1")
	}
}

// Row: sent back for rework, the authors are asked to revise; the owner,
// the escalating agent and the proposer are told, the proposer that the
// proposal was sent back.
func TestToldARework(t *testing.T) {
	f, svc, _ := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, p.Conflict, &model.Routing{To: owner}, &model.Proposed{WinnerID: &p.A})
	ns := told(t, f, p.Conflict, func() {
		if _, err := svc.Rework(context.Background(), operator, model.ReworkRequest{ConflictID: p.Conflict, Rationale: "measure it again"}); err != nil {
			t.Fatal(err)
		}
	})
	wantStrings(t, "told", recipients(ns), sorted(operator, owner, senior1, senior2, standard))
	for _, a := range authors {
		if n := noticeTo(t, ns, a); !n.RequiresAction {
			t.Errorf("author %s is not asked to revise: %+v", a, n)
		}
	}
	wantIn(t, noticeTo(t, ns, senior1), "sent back to its authors", senior1+"'s proposal", "was sent back")
	wantIn(t, noticeTo(t, ns, owner), model.NoLongerNeeded)
}

// Row: a reopening returns the conflict to the owner its route had and
// tells the authors, that owner, whoever made the decision taken back and
// whoever reopens it.
func TestToldAReopeningAndWhereItGoes(t *testing.T) {
	f, svc, _ := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, p.Conflict, &model.Routing{To: owner}, nil)
	w := p.B
	if _, err := svc.Merge(context.Background(), owner, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Authority,
		Resolution: model.MergeResolution{WinnerID: &w, Rationale: "B"}}); err != nil {
		// The owner may not decide under this policy: the operator does.
		merge(t, f, operator, req(p.Conflict, model.Authority, p.B, "B"))
	}
	var resp model.ReopenResponse
	ns := told(t, f, p.Conflict, func() {
		var err error
		resp, err = svc.Reopen(context.Background(), operator, model.ReopenRequest{ConflictID: p.Conflict, Rationale: "misread"})
		if err != nil {
			t.Fatal(err)
		}
	})
	if r := resp.Conflict.Route; r == nil || r.Owner != owner {
		t.Fatalf("reopened to %+v, want %s (the owner its route had)", r, owner)
	}
	wantStrings(t, "told", recipients(ns), sorted(operator, owner, senior1, senior2, standard))
	wantIn(t, noticeTo(t, ns, owner), "routed to "+owner+" (the owner its route had)")
	if !noticeTo(t, ns, owner).RequiresAction {
		t.Errorf("the owner is not asked to act")
	}

	// Without a route before, the policy's owner for its type.
	g, gsvc, _ := highway(t, func(p *model.Policy) {
		p.Owners = map[model.ConflictType]string{model.ConflictFactual: owner}
	})
	q := g.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	merge(t, g, senior1, req(q.Conflict, model.ConfidenceWeighted, q.A, "A"))
	r2, err := gsvc.Reopen(context.Background(), operator, model.ReopenRequest{ConflictID: q.Conflict, Rationale: "misread"})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Conflict.Route == nil || r2.Conflict.Route.Owner != owner {
		t.Fatalf("reopened to %+v, want the policy's owner %s", r2.Conflict.Route, owner)
	}
}

// Row: a reminder tells only who the conflict waits for.
func TestToldAReminderOnlyTheOwner(t *testing.T) {
	f, svc, clk := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, p.Conflict, &model.Routing{To: owner, Deadline: "10h"}, nil)
	clk.advance(9 * time.Hour)
	ns := told(t, f, p.Conflict, func() { wantActions(t, sweep(t, svc), model.SweepReminder) })
	wantStrings(t, "reminded", recipients(ns), []string{owner})
}
