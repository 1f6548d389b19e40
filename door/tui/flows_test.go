package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	"github.com/charmbracelet/x/ansi"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC
	if os.Getenv("ARBITER_TUI_HELPER") != "" {
		os.Exit(helperProcess())
	}
	os.Exit(m.Run())
}

// helperProcess is another program writing to the field while the screen
// is open: ARBITER_TUI_HELPER says what it does.
func helperProcess() int {
	ctx := context.Background()
	st, err := arbiterfield.Open(ctx, os.Getenv("ARBITER_TUI_FIELD"), store.Options{})
	if err != nil {
		println(err.Error())
		return 1
	}
	defer st.Close()
	svc := review.New(st)
	switch os.Getenv("ARBITER_TUI_HELPER") {
	case "resolve":
		_, err = svc.Merge(ctx, demo.Operator, model.MergeRequest{ConflictID: os.Getenv("ARBITER_TUI_CONFLICT"),
			Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "settled on a call"}})
	case "escalate-new":
		var res model.RecordResult
		res, err = svc.Record(ctx, "sre-atlas", model.RecordRequest{Type: model.TypeObservation,
			Content: "Peak is **6,100** authorisations/s, not 4,200.", Intent: model.Intent{Purpose: "Correct the peak figure"},
			Confidence: model.Confidence{Score: model.Ptr(0.7), Reasoning: "gateway logs"}, ConflictType: model.ConflictFactual,
			Relations: []model.Relation{{Type: model.RelContradicts, TargetID: "mem-001", Description: "A brand-new disagreement about peak load"}}})
		if err == nil {
			_, err = svc.Merge(ctx, "plan-juno", model.MergeRequest{ConflictID: res.Conflicts[0].ID,
				Strategy: model.HumanEscalation, Resolution: model.MergeResolution{Rationale: "needs a person"}})
		}
	}
	if err != nil {
		println(err.Error())
		return 1
	}
	return 0
}

// otherProcess runs the helper as a separate OS process and waits for it.
func otherProcess(t *testing.T, path, what, conflict string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ARBITER_TUI_HELPER="+what, "ARBITER_TUI_FIELD="+path, "ARBITER_TUI_CONFLICT="+conflict)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the other process failed: %v\n%s", err, out)
	}
}

func detailOf(t testing.TB, svc *review.Service, id string) model.ConflictDetail {
	t.Helper()
	d, err := svc.Detail(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestQueueOpensOnOldestEscalatedConflict(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 30)
	f := s.waitFor("▸ conflict-008", "escalated 5", "pending vote 3", "2/3", "authority 10",
		"Rules split: ") // the preview beside it, read
	golden(t, "queue", f)
}

func TestQueueFiltersAndShowsEveryStatus(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 30)
	s.waitFor("conflict-008")
	s.keys("/")
	s.typeText("sre-atlas")
	s.waitGone("conflict-010") // sec-vega vs res-iris
	s.waitFor("conflict-009", "/ sre-atlas")
	s.keys("esc", "a")
	f := s.waitFor("conflict-001", "showing all statuses")
	if !strings.Contains(f, "resolved") {
		t.Errorf("the whole history should show resolved conflicts:\n%s", f)
	}
}

func TestEmptyQueueSaysSoKindly(t *testing.T) {
	path := t.TempDir() + "/empty.db"
	st, err := arbiterfield.Create(context.Background(), path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	s := start(t, openService(t, path, false), "", 100, 20)
	f := s.waitFor("Nothing waits for a person.")
	if strings.Contains(f, "for you") {
		t.Errorf("a screen without --as speaks to nobody in particular:\n%s", f)
	}
	reg := openService(t, path, false)
	if _, err := reg.Register(context.Background(), model.Agent{ID: "ops-lee", Role: "operator", Kind: model.KindHuman, Authority: 10}); err != nil {
		t.Fatal(err)
	}
	s = start(t, reg, "ops-lee", 100, 20)
	s.waitFor("Nothing waits for you.")
}

func TestConflictShowsBothUnitsSideBySide(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 160, 45)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	f := s.waitFor("A mem-023", "B mem-026", "rules split", "Shadow reconciliation", "The 0.004 % leaves out", "authority 10")
	golden(t, "conflict", f)
	s.keys("h")
	s.waitFor("History", "Notifications", "sre-atlas recorded a contradiction: the conflict opened", "plan-juno escalated it to ops-maya (deadline")
	s.keys("h", "w")
	s.waitFor("A mem-023", "B mem-026")
}

func TestNarrowTerminalShowsUnitsAsTabs(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 90, 30)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("tab switches", "Shadow reconciliation")
	s.keys("tab")
	f := s.waitFor("The 0.004 % leaves out")
	if strings.Contains(f, "Shadow reconciliation") {
		t.Errorf("only one unit should show at a time under 100 columns:\n%s", f)
	}
	s.send(windowSize(50, 10))
	s.waitFor("Terminal too small")
	s.send(windowSize(160, 40))
	s.waitFor("Shadow reconciliation", "The 0.004 % leaves out")
}

func TestDecideSynthesisWritesTheFieldAfterConfirmation(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("d")
	s.waitFor("Decide conflict-008")
	s.keys("down", "down", "down", "down") // synthesis
	s.waitFor("▸ synthesis")
	s.keys("tab")
	s.typeText("Both are right about different payment classes.")
	s.keys("tab")
	s.typeText("The gate holds for same-currency payments only.")
	s.keys("ctrl+s")
	f := s.waitFor("Write this decision?", "mem-023 becomes superseded", "mem-026 becomes superseded", "a new synthesis unit")
	golden(t, "decide-confirm", f)
	if d := detailOf(t, svc, "conflict-008"); d.Conflict.Status != model.StatusEscalated {
		t.Fatalf("nothing may be written before confirmation; status is %s", d.Conflict.Status)
	}
	s.keys("y")
	s.waitFor("Written.", "new unit: mem-")
	d := detailOf(t, svc, "conflict-008")
	r := d.Conflict.Resolution
	if d.Conflict.Status != model.StatusResolved || r == nil || r.Strategy != model.Synthesis || r.SynthesisUnitID == nil {
		t.Fatalf("the field should hold the synthesis: %+v", d.Conflict)
	}
	if r.Rationale != "Both are right about different payment classes." || r.ResolvedBy != demo.Operator {
		t.Errorf("resolution = %+v", r)
	}
	var u model.Unit
	st, _ := arbiterfield.Open(context.Background(), path, store.Options{ReadOnly: true})
	defer st.Close()
	st.Read(context.Background(), func(tx store.Tx) (err error) { u, err = tx.Unit(*r.SynthesisUnitID); return err })
	if u.Content != "The gate holds for same-currency payments only." || u.Type != model.TypeSynthesis {
		t.Errorf("synthesis unit = %+v", u)
	}
}

func TestRefusalIsShownPlainlyAndKeepsTheRationale(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("d")
	s.waitFor("Decide conflict-008")
	s.keys("down") // confidence_weighted: the rule picks A
	s.waitFor("▸ confidence_weighted")
	s.keys("tab", "b")
	// The form runs the field's rules as it changes: the refusal shows
	// before anything is typed or confirmed.
	s.waitFor("✗ confidence_weighted picks mem-023 (confidence 0.88 against 0.64), not mem-026")
	s.keys("tab")
	s.typeText("B measured the right thing.")
	s.keys("ctrl+s")
	s.settle()
	f := s.waitFor("B measured the right thing.")
	if strings.Contains(f, "Write this decision?") {
		t.Errorf("a decision the field refuses was offered for confirmation:\n%s", f)
	}
	s.keys("y") // typed into the rationale, not a confirmation
	s.waitFor("B measured the right thing.y")
	if d := detailOf(t, svc, "conflict-008"); d.Conflict.Status != model.StatusEscalated {
		t.Errorf("a refused decision wrote something: %s", d.Conflict.Status)
	}
}

func TestDismissAndEscalateFromTheScreen(t *testing.T) {
	svc := openService(t, demoField(t), false)
	// ana-quill, a senior agent, escalates a detected conflict.
	s := start(t, svc, "ana-quill", 140, 40)
	s.waitFor("conflict-008")
	s.keys("a")
	s.waitFor("showing all statuses", "conflict-018")
	openByFilter(s, "conflict-018")
	s.keys("d")
	s.waitFor("Decide conflict-018")
	for range 6 {
		s.keys("down")
	}
	s.waitFor("▸ human_escalation")
	s.keys("tab")
	s.typeText("Needs a person: both plans have merit.")
	s.keys("ctrl+s")
	s.waitFor("conflict-018 becomes escalated", "ops-maya")
	s.keys("y")
	s.waitFor("Written.", "is now escalated")
	if d := detailOf(t, svc, "conflict-018"); d.Conflict.Status != model.StatusEscalated || d.Conflict.Escalation.By != "ana-quill" {
		t.Fatalf("conflict-018 = %+v", d.Conflict)
	}
	// The operator dismisses it.
	s2 := start(t, svc, demo.Operator, 140, 40)
	s2.waitFor("conflict-018")
	openByFilter(s2, "conflict-018")
	s2.waitFor("both plans have merit")
	s2.keys("d")
	s2.waitFor("Decide conflict-018")
	for range 7 {
		s2.keys("down")
	}
	s2.waitFor("▸ dismiss")
	s2.keys("tab")
	s2.typeText("Not a conflict: different quarters.")
	s2.keys("ctrl+s")
	s2.waitFor("both units stay active")
	s2.keys("y")
	s2.waitFor("Written.")
	d := detailOf(t, svc, "conflict-018")
	if d.Conflict.Resolution == nil || d.Conflict.Resolution.Strategy != model.Dismiss {
		t.Fatalf("conflict-018 = %+v", d.Conflict)
	}
	if d.A.Unit.Status != model.UnitActive || d.B.Unit.Status != model.UnitActive {
		t.Errorf("dismiss keeps both units active: %s, %s", d.A.Unit.Status, d.B.Unit.Status)
	}
}

func TestVoteIsCastAndClosesTheConflict(t *testing.T) {
	svc := openService(t, demoField(t), false)
	before := detailOf(t, svc, "conflict-014")
	s := start(t, svc, "lead-priya", 140, 40)
	s.waitFor("conflict-014")
	openByFilter(s, "conflict-014")
	s.waitFor("Vote:", "1 for A", "1 for B")
	s.keys("v")
	s.waitFor("Vote on conflict-014", "▍For")
	s.keys("a", "tab")
	s.typeText("Warm standby through the chargeback cycle is cheap insurance.")
	s.keys("ctrl+s")
	f := s.waitFor("Cast this vote?", "This vote closes it")
	golden(t, "vote-confirm", f)
	s.keys("y")
	s.waitFor("is counted:", "The vote is closed")
	d := detailOf(t, svc, "conflict-014")
	r := d.Conflict.Resolution
	if d.Conflict.Status != model.StatusResolved || r == nil || r.Strategy != model.Vote || *r.WinnerID != before.Conflict.UnitA {
		t.Fatalf("the vote should resolve conflict-014 for A: %+v", d.Conflict)
	}
	if len(d.Ballots) != 3 {
		t.Errorf("ballots = %d, want 3", len(d.Ballots))
	}
}

func TestReadOnlyFieldDisablesDecisionsAndSaysWhy(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, true)
	s := start(t, svc, demo.Operator, 140, 30)
	s.waitFor("READ-ONLY", "▸ conflict-008")
	s.keys("enter")
	s.waitFor("decide (read-only)", "A mem-023")
	s.keys("d")
	s.waitFor("Deciding is disabled: the field is read-only")
}

func TestConflictResolvedByAnotherProcessWhileOnScreen(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("d")
	s.waitFor("Decide conflict-008")
	s.keys("tab", "tab")
	s.typeText("Half-typed reasoning")
	s.waitFor("Half-typed reasoning")
	otherProcess(t, path, "resolve", "conflict-008")
	s.keys("esc")
	s.waitFor("changed while on screen", "What you typed is kept")
	s.keys("esc")
	f := s.waitFor("escalated 4")
	if strings.Contains(f, "conflict-008") {
		t.Errorf("a conflict resolved elsewhere should leave the queue:\n%s", f)
	}
}

func TestNewConflictAppearsWithoutRestart(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	s := start(t, svc, demo.Operator, 160, 30)
	s.waitFor("escalated 5")
	otherProcess(t, path, "escalate-new", "")
	s.waitFor("escalated 6", "A brand-new disagreement")
}

// openByFilter filters the queue down to one conflict and opens it.
func openByFilter(s *driver, id string) {
	s.t.Helper()
	s.keys("/")
	s.typeText(id)
	s.waitFor("▸ " + id)
	f := s.Frame()
	if strings.Count(f, "conflict-") != 1 {
		s.waitFor("/ " + id)
	}
	s.keys("enter", "enter")
	s.waitFor(id+"  ", " conflict · ", "Rules: ") // the queue's row and the preview have the id too: wait for the conflict
}

func TestOfflineDecisionGoesToTheDecisionsFile(t *testing.T) {
	path := demoField(t)
	out := filepath.Join(t.TempDir(), "decisions.jsonl")
	svc := openService(t, path, true).WithDecisionsOut(out)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("OFFLINE", "decisions go to", "▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023")
	s.keys("d")
	s.waitFor("Decide conflict-008")
	for range 7 {
		s.keys("down")
	}
	s.waitFor("▸ dismiss")
	s.keys("tab")
	s.typeText("Different payment classes.")
	s.keys("ctrl+s")
	s.waitFor("Write this decision?", "will notify", "when applied")
	s.keys("y")
	s.waitFor("Recorded in", "arbiter apply")
	data, err := os.ReadFile(out)
	if err != nil || strings.Count(string(data), "\n") != 1 || !strings.Contains(string(data), `"conflict-008"`) {
		t.Fatalf("decisions file: %v\n%s", err, data)
	}
	if d := detailOf(t, svc, "conflict-008"); d.Conflict.Status != model.StatusEscalated {
		t.Errorf("the read-only field changed: %s", d.Conflict.Status)
	}
}

// longUnit is about 20 KB of markdown with a known first and last line.
func longUnit() string {
	return "The **start** of a long unit.\n\n" + fieldgen.Markdown(3, 20<<10) + "\n\nThe **end** of a long unit.\n"
}

// leftPane is the left half of each line of a frame, where unit A shows.
func leftPane(frame string, w int) []string {
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w/2, "")
	}
	return lines
}

func TestALargeUnitShowsItsHeadFirstAndKeepsTheReadersPlace(t *testing.T) {
	f, pair := hostileConflict(t, longUnit())
	const w, h = 160, 40
	s := start(t, f.Svc, rt.Operator, w, h)
	s.unhurried()
	s.holdRests()
	s.waitFor("▸ " + pair.Conflict)
	s.keys("enter")
	s.waitFor("The start of a long unit.", "The short answer: p99 is 90 ms.")
	// The head is all there is: its end says so.
	s.keys("pgdown", "pgdown", "pgdown")
	before := leftPane(s.waitFor("Formatting the rest…"), w)
	note := slices.IndexFunc(before, func(l string) bool { return strings.Contains(l, "Formatting the rest…") })
	s.releaseRests()
	after := leftPane(s.waitGone("Formatting the rest…"), w)
	if !slices.Equal(before[:note], after[:note]) {
		t.Errorf("the rest moved the reader: before it came\n%s\nafter\n%s",
			strings.Join(before[:note+1], "\n"), strings.Join(after[:note+1], "\n"))
	}
	s.keys("G")
	s.waitFor("The end of a long unit.")

	// At a new width the unit is formatted again, head first. Gone to the
	// end (G) of the head, the reader is at the end of the unit once the
	// rest comes.
	s.holdRests()
	s.send(windowSize(w-10, h))
	s.keys("g")
	s.waitFor("The start of a long unit.")
	s.keys("G")
	s.waitFor("Formatting the rest…")
	s.releaseRests()
	f2 := s.waitFor("The end of a long unit.")
	if strings.Contains(f2, "Formatting the rest…") {
		t.Errorf("the whole unit still says more is coming:\n%s", f2)
	}
}
