package interop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"arbiter/internal/akashiklog"
	"arbiter/model"
	"arbiter/service/interop"
	rt "arbiter/service/review/reviewtest"

	"github.com/oklog/ulid/v2"
)

func exportTo(t *testing.T, f *rt.Field, path string) interop.ExportReport {
	t.Helper()
	rep, err := interop.ExportAkashik(context.Background(), f.Store, path)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return rep
}

func decide(t *testing.T, f *rt.Field, r model.MergeRequest) model.MergeResponse {
	t.Helper()
	resp, err := f.Svc.Merge(context.Background(), operator, r)
	if err != nil {
		t.Fatalf("merge %s: %v", r.ConflictID, err)
	}
	return resp
}

func rowCounts(t *testing.T, f *rt.Field) map[string]int {
	t.Helper()
	s := rt.Snap(t, f.Path)
	return map[string]int{"agents": s.Count("agents"), "units": s.Count("units"), "conflicts": s.Count("conflicts")}
}

func TestRoundTripCarriesTheDecisionBackToTheLogOnce(t *testing.T) {
	f := newField(t)
	dir := t.TempDir()
	path := writeLog(t, dir, "", scenario()...)
	importLog(t, f, path)
	c := conflicts(t, f)[0]
	winner := e2
	resp := decide(t, f, model.MergeRequest{ConflictID: c.ID, Strategy: model.ConfidenceWeighted,
		Resolution: model.MergeResolution{WinnerID: &winner, Rationale: "the lab controls for warm caches"}})
	before := readLog(t, path)

	rep := exportTo(t, f, path)

	if rep.Appended != 1 || rep.Exported != 1 || rep.Resolved != 1 || rep.AlreadyInLog != 0 {
		t.Fatalf("export %+v: want one event for one resolved conflict", rep)
	}
	after := readLog(t, path)
	if len(after.Events) != len(before.Events)+1 {
		t.Fatalf("the log has %d events, want %d", len(after.Events), len(before.Events)+1)
	}
	e := after.Events[len(after.Events)-1]
	var maxLamport, maxSeq int64
	for _, b := range before.Events {
		maxLamport, maxSeq = max(maxLamport, b.Lamport), max(maxSeq, b.Seq)
	}
	epoch := resp.Conflict.Resolution.EpochResolved
	if e.Type != akashiklog.TypeStatusChange || e.EntryID != e1 || e.NewStatus != akashiklog.StatusSuperseded ||
		e.Agent == nil || *e.Agent != operator || e.Seq != maxSeq+1 || e.Lamport != max(maxLamport, epoch)+1 {
		t.Fatalf("appended %+v: want STATUS_CHANGE superseding %s by %s at lamport %d, seq %d", e, e1, operator,
			max(maxLamport, epoch)+1, maxSeq+1)
	}
	if n := len(utf16.Encode([]rune(e.Intent))); n < akashiklog.MinIntentLength {
		t.Errorf("intent %q is shorter than the SDK's minimum", e.Intent)
	}
	id, err := ulid.ParseStrict(e.EventID)
	resolvedAt := resp.Conflict.Resolution.ResolvedAt
	if err != nil || int64(id.Time()) != resolvedAt.UnixMilli() || e.WallTime != resolvedAt.UnixMilli() {
		t.Errorf("event id %s (%v): want a ULID of the resolution time %s", e.EventID, err, resolvedAt)
	}
	if want := interop.ExportEventID(resolvedAt, resp.Conflict, "loser"); e.EventID != want {
		t.Errorf("event id %s, want the deterministic %s", e.EventID, want)
	}

	// The SDK's own replay sees the decision.
	if st := akashiklog.Replay(after.Events); st.Entry(e1).Status != akashiklog.StatusSuperseded ||
		st.Entry(e2).Status != akashiklog.StatusCommitted || len(akashiklog.Reckon(st)) != 0 {
		t.Errorf("replayed: %s is %s, %s is %s, %d pairs; want the loser superseded and no conflict left",
			e1, st.Entry(e1).Status, e2, st.Entry(e2).Status, len(akashiklog.Reckon(st)))
	}

	// A second export appends nothing.
	bytes1, _ := os.ReadFile(path)
	if rep := exportTo(t, f, path); rep.Appended != 0 || rep.AlreadyInLog != 1 {
		t.Errorf("second export %+v: want nothing appended, one already there", rep)
	}
	if bytes2, _ := os.ReadFile(path); string(bytes1) != string(bytes2) {
		t.Errorf("the second export changed the log")
	}

	// Importing it back into the same field adds nothing.
	counts := rowCounts(t, f)
	importLog(t, f, path)
	if got := rowCounts(t, f); got["agents"] != counts["agents"] || got["units"] != counts["units"] || got["conflicts"] != counts["conflicts"] {
		t.Errorf("re-import changed the counts: %v, then %v", counts, got)
	}

	// A fresh field built from the grown log shows the decision.
	g := newField(t)
	rep2 := importLog(t, g, path)
	if g.Status(t, e1) != model.UnitSuperseded || g.Status(t, e2) != model.UnitActive || rep2.Conflicts.New != 0 {
		t.Errorf("fresh import: %s %s, %s %s, %d conflicts; want the loser superseded and no conflict",
			e1, g.Status(t, e1), e2, g.Status(t, e2), rep2.Conflicts.New)
	}
}

func TestSynthesisIsExportedAsANewEntryThatSupersedesBothOriginals(t *testing.T) {
	f := newField(t)
	path := writeLog(t, t.TempDir(), "", scenario()...)
	importLog(t, f, path)
	c := conflicts(t, f)[0]
	score := 0.5
	for range 5 { // the field's own units: the synthesis gets a higher id than a fresh field would give it
		if _, err := f.Svc.Record(context.Background(), operator, model.RecordRequest{Type: model.TypeFinding,
			Content: "an earlier finding", Intent: model.Intent{Purpose: "record something"},
			Confidence: model.Confidence{Score: &score, Reasoning: "as the test needs"}}); err != nil {
			t.Fatal(err)
		}
	}
	text := "p99 is **40 ms** in the lab and **90 ms** in production: cold caches."
	resp := decide(t, f, model.MergeRequest{ConflictID: c.ID, Strategy: model.Synthesis,
		Resolution: model.MergeResolution{Synthesis: &text, Rationale: "both are right, in their setting"}})
	newID := *resp.SideEffects.NewUnitID

	if rep := exportTo(t, f, path); rep.Appended != 2 {
		t.Fatalf("export %+v: want a RECORD and a STATUS_CHANGE", rep)
	}
	log := readLog(t, path)
	n := len(log.Events)
	rec, other := log.Events[n-2], log.Events[n-1]
	var entry map[string]any
	json.Unmarshal(rec.Entry, &entry)
	if rec.Type != akashiklog.TypeRecord || rec.EntryID != newID || rec.Supersedes != e1 ||
		entry["topic"] != "checkout-p99" || entry["text"] != text || entry["resolves"] != c.ID || rec.Confidence == nil {
		t.Errorf("RECORD %+v entry %s", rec, rec.Entry)
	}
	if other.Type != akashiklog.TypeStatusChange || other.EntryID != e2 || other.NewStatus != akashiklog.StatusSuperseded ||
		other.Lamport != rec.Lamport+1 {
		t.Errorf("STATUS_CHANGE %+v", other)
	}

	g := newField(t)
	importLog(t, g, path)
	if g.Status(t, e1) != model.UnitSuperseded || g.Status(t, e2) != model.UnitSuperseded || g.Status(t, newID) != model.UnitActive {
		t.Errorf("fresh import: %s, %s, synthesis %s", g.Status(t, e1), g.Status(t, e2), g.Status(t, newID))
	}
	// The synthesis keeps its arbiter id, and the ids the new field gives
	// later do not collide with it.
	for i := range 12 {
		if _, err := g.Svc.Record(context.Background(), operator, model.RecordRequest{Type: model.TypeFinding,
			Content: "a later finding", Intent: model.Intent{Purpose: "keep recording"},
			Confidence: model.Confidence{Score: &score, Reasoning: "as the test needs"}}); err != nil {
			t.Fatalf("record %d after importing %s: %v", i, newID, err)
		}
	}
	// Back into the field it came from: the synthesis unit is already there.
	if rep := importLog(t, f, path); rep.Units.New != 0 {
		t.Errorf("re-import added %d units", rep.Units.New)
	}
}

func TestDismissalsAndTheFieldsOwnConflictsAreNotExported(t *testing.T) {
	f := newField(t)
	path := writeLog(t, t.TempDir(), "", scenario()...)
	importLog(t, f, path)
	decide(t, f, model.MergeRequest{ConflictID: conflicts(t, f)[0].ID, Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "they measure different things"}})
	p := f.Contradict(t, model.ConflictFactual, rt.Side{By: operator, Score: 0.9}, rt.Side{By: operator, Score: 0.2})
	winner := p.A
	decide(t, f, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.ConfidenceWeighted,
		Resolution: model.MergeResolution{WinnerID: &winner, Rationale: "higher"}})
	before, _ := os.ReadFile(path)

	rep := exportTo(t, f, path)

	if rep.Appended != 0 || rep.Dismissed != 1 || rep.NotInLog != 1 || rep.Resolved != 2 {
		t.Errorf("export %+v: want the dismissal and the field's own conflict skipped", rep)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the log changed")
	}
}

func TestExportToAMissingLogCreatesNothing(t *testing.T) {
	f := newField(t)
	path := filepath.Join(t.TempDir(), "none.jsonl")
	if rep := exportTo(t, f, path); rep.Appended != 0 {
		t.Fatalf("export %+v", rep)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("export created %s: %v", path, err)
	}
}
