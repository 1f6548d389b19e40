package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	"github.com/charmbracelet/x/ansi"
)

// Escalations with owners, deadlines and proposals, as a person meets
// them on the screen.

// The queue says whose each escalation is and how long it has left, and
// puts what is routed to the person first.
func TestTheQueueShowsOwnersAndTimeLeft(t *testing.T) {
	svc := openService(t, demoField(t), false)
	op := start(t, svc, demo.Operator, 139, 30) // the whole queue: the preview shows from 140
	f := op.waitFor("OWNER", "DUE", "▸ conflict-008")
	for _, want := range []string{"conflict-008  factual      escalated    8h   ana-quill vs sre-atlas              you          1d 15h",
		"conflict-011  priority     escalated    8h   plan-juno vs sre-atlas              you          overdue",
		"conflict-012  factual      escalated    8h   res-iris vs data-wren               lead-kenji   !1h"} {
		if !strings.Contains(f, want) {
			t.Errorf("the queue lacks %q:\n%s", want, f)
		}
	}
	if strings.Index(f, "conflict-011") > strings.Index(f, "conflict-012") || strings.Index(f, "conflict-012") > strings.Index(f, "conflict-009") {
		t.Errorf("not ordered yours, then urgent, then the rest:\n%s", f)
	}

	// lead-kenji owns the peak-load escalation (factual, owners decide):
	// it is first in their queue, marked as theirs.
	lead := start(t, svc, "lead-kenji", 139, 30)
	f = lead.waitFor("▸ conflict-012")
	if !strings.Contains(f, "▸ conflict-012  factual      escalated    8h   res-iris vs data-wren               you") {
		t.Errorf("the owner's queue does not open on what is routed to them:\n%s", f)
	}
	lead.keys("enter")
	lead.waitFor("Routed to you (lead-kenji)", "then evidence_count")
}

// Approving a proposal takes p, a rationale and enter; the field records
// the proposal as the person's decision.
func TestApprovingTheProposalWritesIt(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("plan-juno proposes: replace both with a synthesis", "p approve")
	s.keys("p")
	s.waitFor("Approve plan-juno's proposal: replace both with a synthesis", "a new unit replaces both")
	s.typeText("Kept just as proposed: the split by payment class.")
	s.keys("enter")
	s.waitFor("Written. conflict-008 is now resolved (synthesis)")

	d := detailOf(t, svc, "conflict-008")
	r := d.Conflict.Resolution
	if r == nil || r.Strategy != model.Synthesis || r.ResolvedBy != demo.Operator || r.SynthesisUnitID == nil {
		t.Fatalf("conflict-008 after approving: %+v", d.Conflict)
	}
	if !strings.Contains(r.Rationale, "Kept just as proposed: the split by payment class.") || !strings.Contains(r.Rationale, "Approves plan-juno's proposal") {
		t.Errorf("the rationale does not say what was approved: %q", r.Rationale)
	}
	u, err := svc.Unit(context.Background(), *r.SynthesisUnitID)
	if err != nil || u.Unit.Content != *d.Conflict.Proposal.Synthesis {
		t.Errorf("the new unit is not the proposed synthesis: %q, %v", u.Unit.Content, err)
	}
}

// Modifying opens the form on the proposal's synthesis; what is written
// says it was modified.
func TestModifyingTheProposalStartsFromIt(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 50)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("m modify")
	s.keys("m")
	s.waitFor("Modify plan-juno's proposal on conflict-008", "▸ synthesis", "## Phase 0 gate: met for same-currency")
	s.typeText("Holds for same-currency payments only.")
	s.keys("tab")
	s.waitFor("▍Synthesis")
	s.keys("ctrl+end")
	s.typeText(" Revisit after the FX fix.")
	s.keys("ctrl+s")
	s.waitFor("Write this decision?")
	s.keys("y")
	s.waitFor("Written.")

	r := detailOf(t, svc, "conflict-008").Conflict.Resolution
	if r == nil || r.Strategy != model.Synthesis {
		t.Fatalf("conflict-008 after modifying: %+v", r)
	}
	if !strings.Contains(r.Rationale, "Modifies plan-juno's proposal: an edited synthesis.") {
		t.Errorf("the rationale does not say the proposal was modified: %q", r.Rationale)
	}
	u, err := svc.Unit(context.Background(), *r.SynthesisUnitID)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(u.Unit.Content), "Revisit after the FX fix.") {
		t.Errorf("the new unit is not the edited synthesis: %q, %v", u.Unit.Content, err)
	}
}

// Sending a conflict back takes S, the directive and enter: the conflict
// waits for its authors, who are told what to revise.
func TestSendingBackGivesTheAuthorsTheDirective(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("authority 10")
	openByFilter(s, "conflict-011")
	s.waitFor("S send back")
	s.keys("S")
	s.waitFor("Send back conflict-011 to plan-juno and sre-atlas for rework")
	s.typeText("Put idempotency keys in sprint 1; the dashboard can wait.")
	s.keys("enter")
	s.waitFor("Sent back: conflict-011 is now resolving")

	d := detailOf(t, svc, "conflict-011")
	c := d.Conflict
	if c.Status != model.StatusResolving || c.Rework == nil || c.Rework.By != demo.Operator ||
		c.Rework.Reason != "Put idempotency keys in sprint 1; the dashboard can wait." {
		t.Fatalf("conflict-011 after sending it back: %s, rework %+v", c.Status, c.Rework)
	}
	told := map[string]bool{}
	for _, n := range d.Notifications {
		if n.RequiresAction && n.Epoch >= c.Rework.Epoch {
			told[n.AgentID] = true
		}
	}
	if !told["plan-juno"] || !told["sre-atlas"] {
		t.Errorf("the authors were not told to act: %v", told)
	}

	// The conflict says who sent it back and why; the same key again says
	// it waits for the authors.
	s.keys("esc", "a")
	s.waitFor("showing all statuses")
	openByFilter(s, "conflict-011")
	s.waitFor("Sent back to its authors by ops-maya: Put idempotency keys")
	s.keys("S")
	s.waitFor("was sent back already by ops-maya")
}

// A person who may not decide is offered none of it, and told who may.
func TestOnlyThoseWhoMayAnswerAreOfferedTheKeys(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-tomas", 140, 40)
	s.waitFor("authority 6")
	openByFilter(s, "conflict-008")
	f := s.waitFor("plan-juno proposes: replace both with a synthesis")
	if strings.Contains(f, "p approve") || strings.Contains(f, "S send back") || strings.Contains(f, "m modify") {
		t.Errorf("lead-tomas is offered answers to a proposal routed to ops-maya:\n%s", f)
	}
	for _, k := range []string{"p", "m", "S"} {
		s.keys(k)
		s.waitFor("ops-maya (its owner) decides it, not you.")
		s.settle() // the key is handled
		f := s.Frame()
		for _, opened := range []string{"Approve plan-juno's proposal", "Modify plan-juno's proposal", "Send back conflict-008"} {
			if strings.Contains(f, opened) {
				t.Errorf("%s opened %q for lead-tomas:\n%s", k, opened, f)
			}
		}
	}
	if d := detailOf(t, svc, "conflict-008"); d.Conflict.Status != model.StatusEscalated {
		t.Errorf("conflict-008 changed: %s", d.Conflict.Status)
	}
}

// While the screen is open on a field it may write, a deadline that
// passes executes its fallback; the screen says so and the queue moves on.
func TestTheScreenExecutesFallbacksWhenTheirDeadlinePasses(t *testing.T) {
	path := demoField(t)
	st, err := arbiterfield.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	later := screenNow.Add(2 * time.Hour) // past the peak-load escalation's deadline
	svc := review.New(st).WithClock(func() time.Time { return later })

	s := start(t, svc, demo.Operator, 160, 30, func(o *Options) {
		o.SweepEvery = 20 * time.Millisecond
		o.Now = func() time.Time { return later }
	})
	s.waitFor("conflict-012's deadline passed: evidence_count")
	// The queue, once read (the sweep may finish before it is), keeps
	// conflict-011, which has no fallback, and loses conflict-012.
	s.until(testwait.Deadline, "conflict-011 without conflict-012 in the queue", func(frame string) bool {
		f := ansi.Strip(frame)
		return strings.Contains(f, "conflict-011") && !strings.Contains(f, "conflict-012 ")
	})

	c := detailOf(t, svc, "conflict-012").Conflict
	if c.Resolution == nil || c.Resolution.ResolvedBy != model.FallbackAgent || c.Resolution.Strategy != model.EvidenceCount {
		t.Fatalf("conflict-012 after its deadline: %+v", c.Resolution)
	}
	s.keys("a")
	s.waitFor("showing all statuses")
	openByFilter(s, "conflict-012")
	s.keys("h")
	s.waitFor("the deadline passed (fallback evidence_count)")
}

// A read-only screen never sweeps.
func TestAReadOnlyScreenDoesNotSweep(t *testing.T) {
	path := demoField(t)
	st, err := arbiterfield.Open(context.Background(), path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	later := screenNow.Add(2 * time.Hour)
	svc := review.New(st).WithClock(func() time.Time { return later })
	s := start(t, svc, demo.Operator, 160, 30, func(o *Options) { o.SweepEvery = 20 * time.Millisecond })
	s.waitFor("▸ conflict-008")
	// The screen schedules no sweep at all (one every 20 ms otherwise), and
	// a sweep the store refused would say so on the screen.
	if s.m.sweeps() {
		t.Error("a read-only screen schedules sweeps")
	}
	if f := s.Frame(); strings.Contains(f, "Sweeping") {
		t.Errorf("a read-only screen tried to sweep:\n%s", f)
	}
	rw := openService(t, path, false)
	if c := detailOf(t, rw, "conflict-012").Conflict; c.Status != model.StatusEscalated {
		t.Errorf("a read-only screen executed a fallback: %+v", c)
	}
}
