package tui

// Every line readable: what the screen cuts it says how to read whole,
// what it says it says in full, and it builds nothing from a failed read.

import (
	"context"
	"strings"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	"github.com/charmbracelet/x/ansi"
)

// The conflict's header cuts what does not fit, and the whole-header
// key shows it all, wrapped: the escalation's reason in full.
func TestTheWholeHeaderShowsWhatTheHeaderCuts(t *testing.T) {
	svc := openService(t, demoField(t), false)
	d := detailOf(t, svc, "conflict-011")
	s := start(t, svc, "ops-maya", 80, 24)
	s.waitFor("▸ conflict-008")
	openByFilter(s, "conflict-011")
	f := s.waitFor("conflict-011", "Routed to you")
	reason := d.Conflict.Escalation.Reason
	if strings.Contains(flatText(f), flatText(reason)) {
		t.Fatalf("the reason fits at 80 columns: this test needs a longer one:\n%s", f)
	}
	s.keys("+")
	s.waitForWrapped(flatText(reason))
	s.keys("esc")
	s.waitFor("A mem-035")
}

// The vote form's ballots and its confirmation are in full, wrapped, even
// at 80 columns.
func TestTheVoteConfirmationIsWrappedNotCut(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 80, 24)
	s.waitFor("conflict-0")
	openByFilter(s, "conflict-014")
	s.waitFor("Vote:")
	s.keys("v")
	f := s.waitFor("Vote on conflict-014")
	// Every ballot's rationale in full, wrapped.
	if !strings.Contains(flatText(f), "Two warm stacks for a month is an on-call load we cannot staff.") {
		t.Errorf("lead-kenji's rationale is cut:\n%s", f)
	}
	for _, line := range strings.Split(f, "\n") {
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("a line of %d cells at 80 columns, which the terminal would cut: %q", w, line)
		}
	}
	s.keys("a", "tab")
	s.typeText("Cheap insurance.")
	s.keys("ctrl+s")
	s.waitForWrapped("Cast this vote?", "This vote closes it: the majority prevails, mem-046 stands and mem-047 is superseded.",
		"y yes")
}

// The history's panes are as tall as their box and show the last entry
// whole: they hold no unit's metadata.
func TestTheHistoryPanesShowTheirLastEntryWhole(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "ops-maya", 120, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("h")
	f := s.waitFor("Notifications")
	// The last of the four escalation notices (both authors, the owner
	// and the agent that escalated it: docs/escalations.md), each
	// carrying the whole rationale, is shown whole: from its first line
	// to its last words, at the bottom of the pane.
	last := strings.LastIndex(f, "→ sre-atlas · action needed")
	if last < 0 || !strings.Contains(f[last:], "conflict-008 escalated to ops-maya") || !strings.Contains(f[last:], "both with a synthesis.") {
		t.Errorf("the notifications pane does not show its last notice whole:\n%s", f)
	}
}

// After a decision written in the form, the cursor goes to the first row
// still waiting, not the one after it.
func TestAfterAFormDecisionTheCursorGoesToTheFirstRowStillWaiting(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "ops-maya", 140, 40)
	f := s.waitFor("▸ conflict-008")
	next := ""
	for _, line := range strings.Split(f, "\n") {
		if strings.Contains(line, "● conflict-") && next == "" {
			next = strings.Fields(line)[1]
		}
	}
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("d")
	s.waitFor("Decide conflict-008")
	pickStrategy(s, 7, "dismiss")
	s.keys("tab")
	s.typeText("Different payment classes.")
	s.keys("ctrl+s")
	s.waitFor("Write this decision?")
	before := s.loads()
	s.keys("y")
	s.waitFor("Written.")
	s.until(testwait.Deadline, "the queue read again", func(string) bool { return s.queueLoads > before })
	if d := detailOf(t, svc, "conflict-008"); d.Conflict.Status != model.StatusResolved {
		t.Fatalf("conflict-008 is %s", d.Conflict.Status)
	}
	// The form's decision went back to the queue, as a quick one does.
	f = s.waitGone("conflict-008  escalated")
	if !strings.Contains(f, "▸ "+next) {
		t.Errorf("the cursor should be on %s, the first row still waiting:\n%s", next, f)
	}
}

// The same, on the queue alone: the form's decision already gone from the
// rows read again, the cursor on their first, leaving the form keeps it
// there (it used to step on to the second).
func TestSkipToStaysOnTheFirstRowStillWaitingAfterAReload(t *testing.T) {
	q := newQueue()
	for _, id := range []string{"conflict-011", "conflict-012", "conflict-009"} {
		q.rows = append(q.rows, model.ConflictSummary{Conflict: model.Conflict{ID: id}})
	}
	q.turn = map[string]model.Turn{"conflict-011": model.TurnDecide, "conflict-012": model.TurnDecide, "conflict-009": model.TurnDecide}
	q.skipTo(10, func(string) bool { return false }, "conflict-008")
	if s, _ := q.selected(); s.ID != "conflict-011" {
		t.Errorf("the cursor is on %s, want conflict-011", s.ID)
	}
	// Before the reload, the decided row is still there: the cursor
	// steps past it.
	q.rows = append([]model.ConflictSummary{{Conflict: model.Conflict{ID: "conflict-008"}}}, q.rows...)
	q.turn["conflict-008"] = model.TurnDecide
	q.cursor = 0
	q.skipTo(10, func(string) bool { return false }, "conflict-008")
	if s, _ := q.selected(); s.ID != "conflict-011" {
		t.Errorf("the cursor is on %s, want conflict-011", s.ID)
	}
}

// The help explains the queue's row marks, and a row due soon carries a
// sign that needs no colour.
func TestTheHelpExplainsTheRowMarksAndDueSoonNeedsNoColour(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "ops-maya", 120, 40)
	f := s.waitFor("▸ conflict-008")
	var due string
	for _, line := range strings.Split(f, "\n") {
		if strings.Contains(line, "conflict-012") {
			due = line
		}
	}
	if !strings.Contains(due, "!1h 1m") {
		t.Errorf("conflict-012, due in 1h 1m of 10h, is not marked due soon:\n%s", due)
	}
	s.keys("?")
	s.waitForWrapped("Rows: ● yours to act on · ✓ marked · ⋯ decided, in its undo window · ↷ decided in the decisions file · ! due soon")
}

// When the field cannot be read, keep A says so, naming the conflict
// by its id, and asks for nothing: no message is built from the request
// whose read failed.
func TestAFailedReadIsSaidPlainlyWithTheConflictsID(t *testing.T) {
	path := demoField(t)
	st, err := arbiterfield.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := review.New(st).WithClock(steppingClock(screenNow))
	s := start(t, svc, "ops-maya", 120, 40)
	s.waitFor("▸ conflict-008")
	st.Close() // as a server that went away
	s.keys("A")
	f := s.waitFor("Keep A on conflict-008: could not read conflict-008:")
	if strings.Contains(f, "on  ") || strings.Contains(f, "would be refused") || s.m.prompt != nil {
		t.Errorf("the refusal is built from the failed read, or the prompt still asks:\n%s", f)
	}
}

// A message longer than the terminal is wide wraps, in full.
func TestALongMessageWrapsInFull(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "plan-juno", 80, 24)
	s.waitFor("conflict-0")
	openByFilter(s, "conflict-016")
	s.waitFor("pending_vote")
	s.keys("A")
	f := s.waitForWrapped("Keep A on conflict-016: conflict-016 is put to a vote and you may not vote in this field")
	if !strings.HasSuffix(flatText(f), " may.") {
		t.Errorf("the message is cut:\n%s", f)
	}
	if n := len(strings.Split(f, "\n")); n != 24 {
		t.Errorf("the frame has %d lines, want 24:\n%s", n, f)
	}
}
