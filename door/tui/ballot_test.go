package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"

	"github.com/charmbracelet/x/ansi"
)

// A lead casts a ballot from the queue with keep A: the prompt says what
// the ballot does to the tally, in full, and enter casts it after the
// undo window.
func TestKeepAOnAVoteRowCastsABallotFromTheQueue(t *testing.T) {
	svc := openService(t, demoField(t), false)
	before := detailOf(t, svc, "conflict-014")
	s := start(t, svc, "lead-priya", 80, 24)
	s.waitFor("conflict-014")
	s.keys("/")
	s.typeText("conflict-014")
	s.waitFor("▸ conflict-014")
	s.keys("enter", "A")
	f := ansi.Strip(s.waitFor("Ballot for A"))
	if !strings.Contains(flatText(f), "Your ballot makes it 2–1 (A–B) of quorum 3: this closes the vote, "+before.Conflict.UnitA+
		" prevails and "+before.Conflict.UnitB+" is superseded") {
		t.Fatalf("the prompt does not say in full what the ballot does:\n%s", f)
	}
	s.typeText("Warm standby is cheap insurance.")
	s.keys("enter")
	s.waitFor("Your vote on conflict-014 is counted")
	d := detailOf(t, svc, "conflict-014")
	if d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution == nil || *d.Conflict.Resolution.WinnerID != before.Conflict.UnitA {
		t.Fatalf("the ballot should close conflict-014 for A: %+v", d.Conflict)
	}
	var mine *model.Ballot
	for _, b := range d.Ballots {
		if b.VoterID == "lead-priya" {
			mine = &b
		}
	}
	if mine == nil || mine.Rationale != "Warm standby is cheap insurance." {
		t.Fatalf("lead-priya's ballot = %+v", mine)
	}
	// The closed vote is the ballots' decision, not the last voter's.
	s.keys("a")
	s.waitFor("▸ conflict-014")
	s.keys("enter")
	s.waitFor("Resolved by vote")
	s.keys("+")
	s.waitForWrapped("Resolved by vote, 2–1: lead-tomas, lead-priya for A; lead-kenji for B: " + before.Conflict.UnitA + " prevails")
}

// Keep A on a conflict put to a vote says why it is not the person's to
// vote on before asking for anything.
func TestKeepAOnAVoteSaysWhyNotBeforeAskingForARationale(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "plan-juno", 120, 40)
	s.waitFor("conflict-0")
	openByFilter(s, "conflict-016")
	s.waitFor("conflict-016", "pending_vote")
	s.keys("A")
	f := ansi.Strip(s.waitFor("Keep A on conflict-016: conflict-016 is put to a vote and you may not vote"))
	if strings.Contains(f, "why?") || strings.Contains(f, "would be refused") {
		t.Fatalf("the prompt asks for a rationale it cannot use:\n%s", f)
	}
	if s.m.prompt != nil {
		t.Fatal("the prompt is open")
	}
}

// Marked vote rows take a ballot each, in one undo window.
func TestBatchBallotsOnMarkedVoteRows(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 120, 40)
	s.waitFor("conflict-0")
	s.keys("M")
	s.waitGone("conflict-008")
	s.keys("*", "B")
	s.waitForWrapped("Keep B on 3 marked conflicts", "on 2 put to a vote, your ballot for B instead")
	s.typeText("B reads the data right.")
	s.keys("enter")
	s.waitFor("Decided 3 of 3.")
	for _, id := range []string{"conflict-014", "conflict-016"} {
		d := detailOf(t, svc, id)
		found := false
		for _, b := range d.Ballots {
			found = found || (b.VoterID == "lead-priya" && b.Choice == d.Conflict.UnitB && b.Rationale == "B reads the data right.")
		}
		if !found {
			t.Errorf("%s has no ballot of lead-priya for B: %+v", id, d.Ballots)
		}
	}
}

// waitForWrapped waits until the frame, its lines joined and its runs of
// spaces made one, contains every one of texts: a sentence however the
// screen wrapped it.
func (d *driver) waitForWrapped(texts ...string) string {
	d.t.Helper()
	has := func(frame string) bool {
		flat := flatText(frame)
		for _, want := range texts {
			if !strings.Contains(flat, want) {
				return false
			}
		}
		return true
	}
	return ansi.Strip(d.until(testwait.Deadline, fmt.Sprintf("%q", texts), has))
}

// flatText is a frame without style, its lines joined by one space.
func flatText(frame string) string { return strings.Join(strings.Fields(ansi.Strip(frame)), " ") }

// A ballot from the prompt waits in the undo window like a decision:
// undo takes it back and nothing reaches the field.
func TestABallotFromThePromptCanBeUndone(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 120, 40, func(o *Options) { o.UndoWindow = time.Minute })
	s.waitFor("conflict-014")
	openByFilter(s, "conflict-014")
	s.waitFor("Vote:")
	s.keys("A")
	s.waitFor("Ballot for A")
	s.typeText("Thirty days.")
	s.keys("enter")
	s.waitFor("conflict-014: a ballot for A — written in")
	s.keys("u")
	s.waitFor("Undone: conflict-014: a ballot for A was not written.")
	s.settle()
	if d := detailOf(t, svc, "conflict-014"); len(d.Ballots) != 2 || d.Conflict.Status != "pending_vote" {
		t.Errorf("the undone ballot reached the field: %d ballots, %s", len(d.Ballots), d.Conflict.Status)
	}
}

// Changing a ballot in the form opens on the choice of the side, its
// keys named beside it and nowhere else; a rationale typed there goes to
// the rationale, never flipping the side with its a's and b's; the
// confirmation says the side and the rationale it is cast with.
func TestChangingABallotKeepsTheSideChosenAndTheRationaleTyped(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 100, 30)
	s.waitFor("conflict-0")
	openByFilter(s, "conflict-015") // lead-priya voted B on it
	s.keys("v")
	f := s.waitFor("Vote on conflict-015", "▍For", "you voted for B")
	if !strings.Contains(f, "a/b or ←/→ · tab to the rationale") {
		t.Errorf("the choice of the side does not name its keys:\n%s", f)
	}
	s.typeText("Both cohorts. A slow start beats a fast rollback.")
	f = s.waitFor("What you typed went to the rationale", "fast rollback.")
	forLine := ""
	for _, l := range strings.Split(f, "\n") {
		if strings.HasPrefix(l, " For ") {
			forLine = l
		}
	}
	if !strings.Contains(f, "▍Rationale") || !strings.Contains(forLine, "shift+tab to change the side") || strings.Contains(forLine, "a/b") {
		t.Errorf("the keyboard should be in the rationale, the side's keys named only where they act:\n%s", f)
	}
	d := detailOf(t, svc, "conflict-015")
	if !strings.Contains(s.Styled(), sidesView(s.m.styles, d.Conflict, d.Conflict.UnitB)) {
		t.Errorf("the typed a's and b's changed the side:\n%s", f)
	}
	s.keys("ctrl+s")
	s.waitForWrapped("Cast this vote? For B ("+d.Conflict.UnitB+")", "rationale: EU first.", "Both cohorts. A slow start beats a fast rollback.")
	s.keys("y")
	s.waitFor("is counted:")
	d = detailOf(t, svc, "conflict-015")
	for _, b := range d.Ballots {
		if b.VoterID == "lead-priya" && (b.Choice != d.Conflict.UnitB || !strings.HasSuffix(b.Rationale, "Both cohorts. A slow start beats a fast rollback.")) {
			t.Errorf("lead-priya's ballot is %s: %q", b.Choice, b.Rationale)
		}
	}
}

// A key that acts on a conflict, pressed as it opens and before it is
// read, acts once it is: the vote form opens, instead of nothing.
func TestAKeyPressedBeforeTheConflictIsReadActsOnceItIs(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 120, 40)
	s.waitFor("conflict-016")
	s.keys("/")
	s.typeText("conflict-016")
	s.waitFor("▸ conflict-016")
	s.press(s.k.KeepFilter)
	s.press(s.k.Open) // the conflict's detail is read by a command: not back yet
	s.press(s.k.Vote)
	s.waitFor("Vote on conflict-016")
}
