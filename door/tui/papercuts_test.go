package tui

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// While the terminal is too small to draw in, keys act on nothing: the
// screen hidden behind the message does not change.
func TestKeysDoNothingWhileTheTerminalIsTooSmall(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 100, 30)
	s.waitFor("▸ conflict-008")
	s.send(windowSize(50, 10))
	s.waitFor("Terminal too small")
	s.keys("enter", "d", "X", "?", "j", "j")
	f := s.waitForWrapped("6 keys ignored until it is larger.")
	for _, l := range strings.Split(f, "\n") {
		if w := ansi.StringWidth(l); w > 50 {
			t.Errorf("a line of the message is %d cells wide, wider than the terminal's 50: %q", w, l)
		}
	}
	if !strings.Contains(flatText(f), "this one is 50×10.") {
		t.Errorf("the message lost its words to the terminal's width:\n%s", f)
	}
	s.send(windowSize(100, 30))
	f = s.waitFor("▸ conflict-008")
	if strings.Contains(f, "Rules:") || strings.Contains(f, "Dismiss") || strings.Contains(f, "where you are") {
		t.Errorf("keys pressed while the terminal was too small acted:\n%s", f)
	}
	if s.m.prompt != nil || len(s.m.stack) != 1 {
		t.Errorf("keys pressed while the terminal was too small opened something: %d screens, prompt %v", len(s.m.stack), s.m.prompt != nil)
	}
}

// A decision made with a quick key on a conflict (approve) and one made
// in the decision form end the same way: back on the queue, the cursor
// on the next row waiting, the footer saying what was written.
func TestAQuickDecisionAndAFormDecisionEndTheSameWay(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 120, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("plan-juno proposes")
	s.press(s.k.Approve)
	s.waitFor("Approve plan-juno's proposal")
	s.typeText("The gate holds for same-currency payments.")
	s.keys("enter")
	quick := s.waitFor("Written. conflict-008 is now resolved (synthesis)", "showing waiting for people")

	openByFilter(s, "conflict-011")
	s.press(s.k.Decide)
	s.waitFor("Decide conflict-011")
	pickStrategy(s, 7, "dismiss")
	s.keys("tab")
	s.typeText("Different releases.")
	s.keys("ctrl+s")
	s.waitFor("Write this decision?")
	s.keys("y")
	form := s.waitFor("Written. conflict-011 is now resolved (dismiss)", "showing waiting for people")
	for name, f := range map[string]string{"approve": quick, "decide": form} {
		if strings.Contains(f, "Rules:") || strings.Contains(f, "Decide conflict") {
			t.Errorf("after %s the screen is not the queue:\n%s", name, f)
		}
	}
}

// A refusal says who may act once, not again in parentheses.
func TestARefusalNamesWhoMayActOnce(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 140, 40)
	f := s.waitFor("conflict-009")
	moveTo(s, f, "conflict-009") // routed to lead-tomas
	s.keys("A")
	f = s.waitForWrapped("only lead-tomas, its owner, or a human operator (authority 10) may decide it")
	if strings.Contains(flatText(f), "(ask lead-tomas") {
		t.Errorf("the refusal says who may twice:\n%s", f)
	}
}

// moveTo moves the queue's cursor to id's row.
func moveTo(s *driver, frame, id string) {
	s.t.Helper()
	for range 20 {
		if strings.Contains(s.Frame(), "▸ "+id) {
			return
		}
		s.keys("j")
	}
	s.t.Fatalf("no row %s:\n%s", id, frame)
}

// Every status is shown in the order of the field, and the header says
// so, not the person's order.
func TestAllStatusesClaimsNoOrderTheRowsAreNotIn(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-tomas", 139, 40)
	s.waitFor("yours and due soon first")
	s.press(s.k.AllStatuses)
	f := s.waitFor("showing all statuses")
	if strings.Contains(f, "yours") {
		t.Errorf("every status claims the person's order:\n%s", strings.Split(f, "\n")[1])
	}
	if !strings.Contains(f, "showing all statuses, by age") {
		t.Errorf("every status should say its order:\n%s", strings.Split(f, "\n")[1])
	}
}

// The row under the cursor keeps its ✓ mark.
func TestTheCursorRowKeepsItsMark(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 120, 30)
	s.waitFor("▸ conflict-008")
	s.press(s.k.Mark)
	s.waitFor("1 marked", "▸ conflict-011")
	s.press(s.k.Up)
	f := s.waitFor("▸✓conflict-008")
	if regexp.MustCompile(`(?m)^▸ conflict-008`).MatchString(f) {
		t.Errorf("the cursor hides the mark:\n%s", f)
	}
}

// A decision on marked rows lists, before its rationale, each conflict,
// what it keeps and whom it tells.
func TestTheBatchPromptListsEachConflictItsWinnerAndWhoIsTold(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 120, 40)
	s.waitFor("▸ conflict-008")
	s.keys("space", "space", "space")
	s.waitFor("3 marked")
	s.press(s.k.KeepA)
	f := s.waitForWrapped("Keep A on 3 marked conflicts")
	flat := flatText(f)
	for _, want := range []string{"conflict-008: mem-023 prevails (", "conflict-011: mem-0", "conflict-012: mem-039 prevails (", "· notifies "} {
		if !strings.Contains(flat, want) {
			t.Errorf("the batch prompt lacks %q:\n%s", want, f)
		}
	}
}

// A decision in its undo window that the field would now refuse —
// someone else decided first — is said refused at once, not counted
// down to the end of its window.
func TestADecisionRefusedAsStaleIsSaidAtOnce(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	s := start(t, svc, demo.Operator, 120, 40, func(o *Options) { o.UndoWindow = time.Hour })
	s.waitFor("▸ conflict-008")
	s.press(s.k.Dismiss)
	s.waitFor("Dismiss conflict-008: not a real conflict")
	s.typeText("Different payment classes.")
	s.keys("enter")
	s.waitFor("— written in")
	// The operator's other session decides it while it waits.
	other := openService(t, path, false)
	if _, err := other.Merge(context.Background(), demo.Operator, model.MergeRequest{ConflictID: "conflict-008",
		Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "Not a conflict."}}); err != nil {
		t.Fatal(err)
	}
	s.waitForWrapped("Not written, the field would refuse it now: conflict-008:")
	if s.m.pending != nil {
		t.Errorf("the refused decision still waits to be written")
	}
	// It is said until a key is pressed, not for a few seconds only.
	s.send(flashClearMsg{id: s.m.flashID})
	if !strings.Contains(flatText(s.frame), "Not written, the field would refuse it now") {
		t.Errorf("the refusal was taken off the screen before a key was pressed:\n%s", s.frame)
	}
	s.keys("j")
	if strings.Contains(flatText(s.frame), "Not written") {
		t.Errorf("the refusal stays after a key:\n%s", s.frame)
	}
}

// A batch that was not all written says which were refused, and keeps
// saying it until a key is pressed; one written whole is said for a
// moment only.
func TestABatchWithARefusalIsSaidUntilAKey(t *testing.T) {
	s := start(t, openService(t, demoField(t), false), demo.Operator, 120, 40)
	s.waitFor("▸ conflict-008")
	refusal := model.Errorf("MERGE", model.CodeInvalidTransition, "", "conflict-011 changed since it was read")
	s.send(pendingDoneMsg{id: 98, results: []written{{conflict: "conflict-008", merge: &model.MergeResponse{}},
		{conflict: "conflict-011", err: refusal}}})
	said := "Decided 1 of 2. Refused: conflict-011: conflict-011 changed since it was read"
	if !strings.Contains(flatText(s.frame), said) {
		t.Fatalf("the screen does not say %q:\n%s", said, s.frame)
	}
	s.send(flashClearMsg{id: s.m.flashID})
	if !strings.Contains(flatText(s.frame), said) {
		t.Errorf("the refusals were taken off the screen before a key was pressed:\n%s", s.frame)
	}
	s.keys("j")
	if strings.Contains(flatText(s.frame), "Refused:") {
		t.Errorf("the refusals stay after a key:\n%s", s.frame)
	}

	s.send(pendingDoneMsg{id: 99, results: []written{{conflict: "conflict-008", merge: &model.MergeResponse{}},
		{conflict: "conflict-011", merge: &model.MergeResponse{}}}})
	if !strings.Contains(flatText(s.frame), "Decided 2 of 2.") {
		t.Fatalf("the screen does not say the batch was written:\n%s", s.frame)
	}
	s.send(flashClearMsg{id: s.m.flashID})
	if strings.Contains(flatText(s.frame), "Decided 2 of 2.") {
		t.Errorf("a batch written whole is said until a key:\n%s", s.frame)
	}
}
