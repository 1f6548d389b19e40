package tui

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"
)

// The screen's defects a person met when triaging, each pinned.

// The vote form shows the conflict it was opened on, whatever was open
// before (it showed conflict-016's header over conflict-015's ballots).
func TestTheVoteFormShowsTheConflictItWasOpenedOn(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 140, 40)
	s.waitFor("authority 6")
	openByFilter(s, "conflict-016")
	s.keys("v")
	s.waitFor("Vote on conflict-016", "A mem-050 by ana-quill")
	s.keys("esc", "esc")
	s.waitFor("showing waiting for people")
	s.keys("esc") // the filter
	openByFilter(s, "conflict-015")
	s.keys("v")
	f := s.waitFor("Vote on conflict-015", "A mem-048 by plan-juno", "0 for A · 1 for B · 1 of quorum 3")
	if strings.Contains(f, "mem-050") || strings.Contains(f, "0 of quorum 3") {
		t.Errorf("the vote form mixes in conflict-016:\n%s", f)
	}
}

// The vote form's tally follows ballots cast elsewhere while it is open.
func TestTheVoteFormsTallyFollowsOtherVoters(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 140, 40)
	s.waitFor("authority 6")
	openByFilter(s, "conflict-016")
	s.keys("v")
	s.waitFor("Vote on conflict-016", "0 for A · 0 for B · 0 of quorum 3", "still to vote: lead-kenji, lead-priya, lead-tomas")
	if _, err := svc.Vote(context.Background(), "lead-tomas", model.VoteRequest{ConflictID: "conflict-016", Choice: "A",
		Rationale: "the acquirer's file is what settles"}); err != nil {
		t.Fatal(err)
	}
	f := s.waitFor("1 for A · 0 for B · 1 of quorum 3", "lead-tomas → A", "still to vote: lead-kenji, lead-priya")
	if strings.Contains(f, "0 of quorum 3") {
		t.Errorf("the old tally is still shown:\n%s", f)
	}
}

// onConflict008 opens the demo field's conflict-008 as its operator.
func onConflict008(t *testing.T) (*review.Service, *driver) {
	t.Helper()
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023", "Rules:")
	return svc, s
}

// A change made elsewhere reaches both forms by the same rule: the form
// shows the new state, keeps what was typed, says what changed, and asks
// again before sending (the ballot followed silently, the decision form
// kept the old state).
func TestAChangeElsewhereReachesAFormAskingToConfirm(t *testing.T) {
	svc, s := onConflict008(t)
	s.keys("d")
	s.waitFor("Decide conflict-008", "▍Strategy")
	for i := 0; i < 4 && !strings.Contains(s.Frame(), "▍Rationale"); i++ {
		s.keys("tab")
		s.settle()
	}
	s.typeText("The newer measurement stands.")
	s.keys("ctrl+s")
	s.waitFor("Write this decision?")
	decideElsewhere(t, svc)
	f := s.waitFor("⚠ conflict-008 changed while on screen: it was resolved by ops-maya (authority).", "What you typed is kept")
	if strings.Contains(f, "Write this decision?") || !strings.Contains(f, "The newer measurement stands.") {
		t.Errorf("the form should keep its text and stop asking to confirm:\n%s", f)
	}
	s.keys("ctrl+s")
	s.settle()
	if f := s.Frame(); strings.Contains(f, "Write this decision?") {
		t.Errorf("the form offers to decide a conflict resolved elsewhere:\n%s", f)
	}
}

// A person's own decision is not reported to them as a change made while
// the conflict was on screen.
func TestYourOwnDecisionIsNotReportedAsAChange(t *testing.T) {
	_, s := onConflict008(t)
	s.keys("X")
	s.waitFor("Dismiss conflict-008: not a real conflict")
	s.typeText("Different payment classes.")
	s.keys("enter")
	s.waitFor("Written. conflict-008 is now resolved (dismiss)")
	s.keys("a")
	s.waitFor("showing all statuses")
	openByFilter(s, "conflict-008")
	f := s.waitFor("Resolved by ops-maya with dismiss")
	if strings.Contains(f, "changed while on screen") {
		t.Errorf("the screen warns about the person's own decision:\n%s", f)
	}
}

// After a decision the cursor goes to the next conflict that is the
// person's to decide, not back to the top.
func TestAfterADecisionTheCursorGoesToYourNextConflict(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("j", "j")
	s.waitFor("▸ conflict-012")
	s.keys("X")
	s.waitFor("Dismiss conflict-012: not a real conflict")
	s.typeText("Not a conflict.")
	s.keys("enter")
	s.waitFor("▸ conflict-009", "⋯ conflict-012")
	s.waitFor("Written. conflict-012 is now resolved (dismiss)")
	f := s.waitGone("conflict-012 ")
	if !strings.Contains(f, "▸ conflict-009") {
		t.Errorf("after the queue reloaded, the cursor left conflict-009:\n%s", f)
	}
}

// Every hint names an action that works for this person on this
// conflict, or says who can act.
func TestHintsNameWhatWorksForThisPerson(t *testing.T) {
	svc := openService(t, demoField(t), false)
	op := start(t, svc, demo.Operator, 140, 40)
	op.waitFor("authority 10")
	openByFilter(op, "conflict-015")
	f := op.waitFor("conflict-015")
	if strings.Contains(footerOf(f), "v vote") || strings.Contains(footerOf(f), "d decide") {
		t.Errorf("the operator is offered a ballot or a decision on a vote of the leads:\n%s", footerOf(f))
	}
	op.keys("d")
	op.waitFor("conflict-015 is put to a vote: the eligible voters (lead-kenji, lead-priya, lead-tomas) vote on it, not you.")
	op.keys("v")
	op.waitFor("may not vote in this field")

	lead := start(t, svc, "lead-tomas", 140, 40)
	lead.waitFor("authority 6")
	openByFilter(lead, "conflict-008")
	lead.keys("v")
	lead.waitFor("conflict-008 is not put to a vote. conflict-008 is escalated: ops-maya (its owner) decides it, not you.")
	lead.keys("A")
	lead.waitFor("ops-maya (its owner) decides it, not you.")
	if strings.Contains(lead.Frame(), "Keep A conflict-008") {
		t.Error("a quick decision was offered to someone who may not decide")
	}

	// A resolved conflict offers the operator reopen, and nobody a
	// decision or a vote.
	op.keys("esc", "esc", "a")
	op.waitFor("showing all statuses")
	openByFilter(op, "conflict-002")
	f = op.waitFor("Resolved", "R reopen")
	if strings.Contains(footerOf(f), "d decide") || strings.Contains(footerOf(f), "v vote") {
		t.Errorf("a resolved conflict offers a decision:\n%s", footerOf(f))
	}

	// A ballot cast in the form goes back to the queue, as a quick one
	// does, and says what it did there.
	priya := start(t, svc, "lead-priya", 140, 40)
	priya.waitFor("authority 6")
	openByFilter(priya, "conflict-016")
	priya.keys("v", "a", "tab")
	priya.typeText("The acquirer's file settles.")
	priya.keys("ctrl+s")
	priya.waitFor("Cast this vote?")
	priya.keys("y")
	priya.waitFor("is counted:", "showing waiting for people")
	if foot := priya.waitGone("is counted:"); strings.Contains(footerOf(foot), "submit") {
		t.Errorf("the queue's footer after the ballot: %q", footerOf(foot))
	}
}

// footerOf is a frame's last line.
func footerOf(frame string) string {
	lines := strings.Split(strings.TrimRight(frame, "\n"), "\n")
	return lines[len(lines)-1]
}

// The open decision form notices at once that the conflict changed.
func TestTheOpenDecisionFormNoticesAChange(t *testing.T) {
	svc, s := onConflict008(t)
	s.keys("d")
	s.waitFor("Decide conflict-008")
	decideElsewhere(t, svc)
	s.waitFor("Decide conflict-008", "⚠ conflict-008 changed while on screen: it was resolved by ops-maya (authority).")
}

// A short terminal scrolls the form to the field being typed, and long
// messages wrap instead of being cut at the screen's edge.
func TestFormsScrollToTheFieldBeingTypedAndMessagesWrap(t *testing.T) {
	svc := openService(t, demoField(t), false)
	for _, size := range [][2]int{{80, 24}, {60, 20}} {
		s := start(t, svc, demo.Operator, size[0], size[1])
		s.waitFor("▸ conflict-008")
		s.keys("enter")
		s.waitFor("A mem-023")
		s.keys("d")
		s.waitFor("Decide conflict-008")
		pickStrategy(s, 4, "synthesis")
		s.keys("tab")
		s.typeText("Both hold.")
		s.keys("tab")
		s.typeText("line one")
		s.keys("enter")
		s.typeText("line two")
		s.keys("enter")
		s.typeText("line three")
		f := s.waitFor("line three", "▍Synthesis")
		if got := strings.Count(f, "\n") + 1; got != size[1] {
			t.Errorf("%dx%d: the frame has %d lines", size[0], size[1], got)
		}
	}
	s := start(t, svc, demo.Operator, 60, 20)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("d")
	s.waitFor("Decide conflict-008")
	s.keys("down")
	s.waitFor("▸ confidence_weighted")
	s.keys("tab", "b")
	f := s.waitFor("✗ confidence_weighted picks mem-023", "choose another strategy)")
	for _, l := range strings.Split(f, "\n") {
		if len([]rune(l)) > 60 {
			t.Errorf("a line is wider than the screen: %q", l)
		}
	}
}

// On a read-only copy with a decisions file, the queue marks what the
// file decides already.
func TestTheQueueMarksConflictsDecidedOffline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "decisions.jsonl")
	svc := openService(t, demoField(t), true).WithDecisionsOut(out)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("OFFLINE", "▸ conflict-008")
	s.keys("X")
	s.waitFor("Dismiss conflict-008: not a real conflict", "will notify", "when applied")
	s.typeText("Different payment classes.")
	s.keys("enter")
	s.waitFor("↷ conflict-008", "nobody is notified until")
}

// The filter finds what the queue shows: statuses as shown, unit ids.
func TestTheFilterFindsWhatTheQueueShows(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("/")
	f := s.waitFor("/ filter: words of ids")
	if strings.Contains(f, "/ f\n") {
		t.Errorf("the empty filter shows a lone letter:\n%s", f)
	}
	s.typeText("vote")
	f = s.waitGone("conflict-008")
	s.waitFor("conflict-014", "conflict-015", "conflict-016")
	if strings.Contains(f, "conflict-008") {
		t.Errorf("/vote lists an escalated conflict:\n%s", f)
	}
	s.keys("esc", "/")
	s.typeText("mem-026")
	f = s.waitGone("conflict-009")
	s.waitFor("▸ conflict-008")
	if strings.Contains(f, "conflict-009") {
		t.Errorf("/mem-026 lists another conflict:\n%s", f)
	}
}

// An id, the one column a person types back into the command line, is
// never cut, however long.
func TestLongIDsAreNeverCut(t *testing.T) {
	path := demoField(t)
	long := "conflict-1900000000000-imported"
	renameConflict(t, path, "conflict-009", long)
	svc := openService(t, path, false)
	s := start(t, svc, demo.Operator, 140, 40)
	f := s.waitFor("escalated 5")
	if !strings.Contains(f, long+" ") {
		t.Errorf("the long id is cut:\n%s", f)
	}
}

// Undo within the window leaves the field as it was: what it holds, and
// nothing held for a sweep.
func TestUndoWithinTheWindowWritesNothing(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	before := fieldSum(t, path)
	s := start(t, svc, demo.Operator, 140, 40, func(o *Options) { o.UndoWindow = time.Minute })
	s.waitFor("▸ conflict-008")
	s.keys("B")
	s.waitFor("Keep B conflict-008: mem-026 prevails by last_write_wins")
	s.typeText("Production numbers win.")
	s.keys("enter")
	s.waitFor("conflict-008: keep B (last_write_wins) — written in")
	s.keys("u")
	s.waitFor("Undone: conflict-008: keep B (last_write_wins) was not written.")
	s.settle()
	if after := fieldSum(t, path); after != before {
		t.Error("undo left the field changed")
	}
	if d := detailOf(t, svc, "conflict-008"); d.Conflict.Status != model.StatusEscalated {
		t.Errorf("conflict-008 is %s", d.Conflict.Status)
	}
}

// fieldSum is the digest of what a field holds (store.Digest), and the
// decisions it holds in an undo window.
func fieldSum(t *testing.T, path string) string {
	t.Helper()
	st, err := arbiterfield.Open(context.Background(), path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var sum store.Summary
	var held []model.HeldDecision
	if err := st.Read(context.Background(), func(tx store.Tx) (err error) {
		if sum, err = store.Digest(tx); err != nil {
			return err
		}
		held, err = tx.HeldOf(demo.Operator)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s; %d held", sum, len(held))
}

// renameConflict gives a conflict another id, as an import from another
// tool might have named it.
func renameConflict(t *testing.T, path, from, to string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE conflicts SET id = ? WHERE id = ?`, to, from); err != nil {
		t.Fatal(err)
	}
}

// decideElsewhere decides conflict-008 (keep mem-023) as another
// operator's screen would, behind the screen under test.
func decideElsewhere(t *testing.T, svc *review.Service) {
	t.Helper()
	w := "mem-023"
	if _, err := svc.Merge(context.Background(), "ops-maya", model.MergeRequest{ConflictID: "conflict-008", Strategy: model.Authority,
		Resolution: model.MergeResolution{WinnerID: &w, Rationale: "decided elsewhere"}}); err != nil {
		t.Fatal(err)
	}
}
