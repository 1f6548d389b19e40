package interop_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/internal/akashiklog"
	"arbiter/model"
	"arbiter/service/interop"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// Entry ids of the scenario log.
const (
	e1, e2     = "01J0E1000000000000000000E1", "01J0E2000000000000000000E2"
	r1, r2, r3 = "01J0R1000000000000000000R1", "01J0R2000000000000000000R2", "01J0R3000000000000000000R3"
	x1, x2     = "01J0X1000000000000000000X1", "01J0X2000000000000000000X2"
	d1, g1     = "01J0D1000000000000000000D1", "01J0G1000000000000000000G1"
)

const (
	latency = `{"topic":"checkout-p99","p99_ms":90,"text":"Production says 90 ms.","region":"eu"}`
	lab     = `{"topic":"checkout-p99","p99_ms":40,"text":"Lab says 40 ms.","region":"eu"}`
)

// scenario is an SDK log written out of replay order: two entries that
// conflict by the SDK's rule, a supersede chain (one by the null agent),
// a retracted entry, a draft, an agent who never registered, one who
// deregistered, and two events at the same lamport (null agent first).
func scenario() []line {
	return []line{
		rec("01J0EV00000000000000000R3", 22, "probe", r3, `{"topic":"retries","count":5}`).with("supersedes", r2),
		register("01J0EV00000000000000000A1", 1, "probe", "latency-probe"),
		rec("01J0EV00000000000000000E2", 12, "lab", e2, lab).with("confidence", map[string]any{"score": 0.8, "reason": "controlled run"}),
		register("01J0EV00000000000000000A2", 2, "lab", "lab-bench"),
		rec("01J0EV00000000000000000E1", 10, "probe", e1, latency),
		register("01J0EV00000000000000000A3", 3, "old-bot", "crawler"),
		event("DEREGISTER", "01J0EV00000000000000000A4", 4, "old-bot").with("entry_id", "old-bot"),
		rec("01J0EV00000000000000000R2", 21, "", r2, `{"topic":"retries","count":4}`).with("supersedes", r1),
		rec("01J0EV00000000000000000X2", 31, "probe", x2, `{"topic":"region","name":"us"}`),
		rec("01J0EV00000000000000000X1", 30, "lab", x1, `{"topic":"region","name":"eu"}`),
		status("01J0EV00000000000000000X3", 32, "lab", x1, "retracted"),
		rec("01J0EV00000000000000000D1", 40, "lab", d1, `{"note":"draft thoughts"}`),
		status("01J0EV00000000000000000D2", 41, "lab", d1, "draft"),
		rec("01J0EV00000000000000000G1", 50, "ghost", g1, `{"topic":"ghost","seen":true}`),
		rec("01J0EV00000000000000000R1", 21, "", r1, `{"topic":"retries","count":3,"type":"decision"}`).with("lamport", 20),
	}
}

func TestImportBuildsTheFieldFromAnSDKLogInReplayOrder(t *testing.T) {
	f := newField(t)
	path := writeLog(t, t.TempDir(), `{"v":1,"event_id":"01J0EV0000000000000000`, scenario()...)

	rep := importLog(t, f, path)

	if rep.Events != 15 || rep.TornLine != 16 {
		t.Errorf("read %d events, torn line %d; want 15 and 16", rep.Events, rep.TornLine)
	}
	if rep.Agents != (interop.Count{New: 5}) || rep.Units != (interop.Count{New: 9}) || rep.Conflicts != (interop.Count{New: 1}) {
		t.Fatalf("report %+v: want 5 agents, 9 units, 1 conflict, all new", rep)
	}
	for id, want := range map[string]model.Agent{
		"probe":                  {Role: "latency-probe", Status: model.AgentIdle},
		"old-bot":                {Role: "crawler", Status: model.AgentOffline},
		"ghost":                  {Role: interop.UnregisteredRole, Status: model.AgentIdle},
		interop.PlaceholderAgent: {Role: interop.PlaceholderRole, Status: model.AgentIdle},
	} {
		a := agent(t, f, id)
		if a.Role != want.Role || a.Status != want.Status || a.Kind != model.KindAgent || a.Authority != model.AuthorityStandard {
			t.Errorf("agent %s = %+v, want role %s, %s, a standard agent", id, a, want.Role, want.Status)
		}
	}

	for id, want := range map[string]model.UnitStatus{
		e1: model.UnitContested, e2: model.UnitContested, r1: model.UnitSuperseded, r2: model.UnitSuperseded,
		r3: model.UnitActive, x1: model.UnitRetracted, x2: model.UnitActive, d1: model.UnitDraft, g1: model.UnitActive,
	} {
		if got := f.Status(t, id); got != want {
			t.Errorf("unit %s is %s, want %s", id, got, want)
		}
	}
	u := f.Unit(t, e1)
	if u.Content != akashiklog.EntryMarkdown(json.RawMessage(latency)) || u.Type != model.TypeFinding ||
		u.Intent.Purpose != "measure the checkout latency" || u.Mode != model.ModeCommitted {
		t.Errorf("unit %s = %+v", e1, u)
	}
	if u.Confidence.ScoreOr(-1) != interop.DefaultScore || u.Confidence.Reasoning != interop.DefaultReasoning {
		t.Errorf("an entry without confidence got %+v", u.Confidence)
	}
	if u.Source.AgentID != "probe" || u.Source.AgentRole != "latency-probe" || !u.Source.Timestamp.Equal(clock.Add(10*time.Second)) {
		t.Errorf("source %+v", u.Source)
	}
	if c := f.Unit(t, e2).Confidence; c.ScoreOr(-1) != 0.8 || c.Reasoning != "controlled run" {
		t.Errorf("confidence of %s = %+v", e2, c)
	}
	if u := f.Unit(t, r1); u.Type != model.TypeDecision || u.Source.AgentID != interop.PlaceholderAgent {
		t.Errorf("unit %s: type %s by %s; want a decision by the placeholder agent", r1, u.Type, u.Source.AgentID)
	}
	if u := f.Unit(t, d1); u.Mode != model.ModeDraft {
		t.Errorf("the draft entry became mode %s", u.Mode)
	}
	for id, target := range map[string]string{r2: r1, r3: r2} {
		rels := f.Unit(t, id).Relations
		if len(rels) != 1 || rels[0].Type != model.RelSupersedes || rels[0].TargetID != target {
			t.Errorf("relations of %s = %+v, want supersedes %s", id, rels, target)
		}
	}

	// Epochs follow the SDK's replay order and pass every lamport.
	order := []struct {
		id      string
		lamport int64
	}{{e1, 10}, {e2, 12}, {r1, 20}, {r2, 21}, {r3, 22}, {x1, 30}, {x2, 31}, {d1, 40}, {g1, 50}}
	var last int64
	for _, o := range order {
		ep := f.Unit(t, o.id).Epoch
		if ep <= last || ep <= o.lamport {
			t.Errorf("unit %s at epoch %d: want after %d and after its lamport %d", o.id, ep, last, o.lamport)
		}
		last = ep
	}
	if c := f.Clock(t); c <= 50 || c != rep.Epoch {
		t.Errorf("clock %d (report %d): want past the log's lamport 50", c, rep.Epoch)
	}

	cs := conflicts(t, f)
	if len(cs) != 1 {
		t.Fatalf("%d conflicts, want 1: %+v", len(cs), cs)
	}
	c := cs[0].Conflict
	if c.UnitA != e1 || c.UnitB != e2 || c.Type != model.ConflictFactual || c.DetectedBy != model.DetectedLogical ||
		c.Status != model.StatusDetected || c.Version != 1 {
		t.Errorf("conflict %+v", c)
	}
	if !strings.Contains(c.Description, `"checkout-p99"`) || !strings.Contains(c.Description, "p99_ms, text") {
		t.Errorf("description %q should name the topic and the differing keys", c.Description)
	}
	d := f.Detail(t, c.ID)
	if len(d.Events) != 1 || d.Events[0].Operation != "DETECT" || d.Events[0].AgentID != "lab" {
		t.Errorf("events %+v, want one DETECT by lab", d.Events)
	}
	var told []string
	for _, n := range d.Notifications {
		if n.Event == model.EventConflictDetected && n.RequiresAction {
			told = append(told, n.AgentID)
		}
	}
	slices.Sort(told)
	if !slices.Equal(told, []string{"lab", "probe"}) {
		t.Errorf("notified %q, want both authors", told)
	}
}

func TestImportingTheSameLogAgainWritesNothing(t *testing.T) {
	f := newField(t)
	path := writeLog(t, t.TempDir(), "", scenario()...)
	importLog(t, f, path)
	before := rt.Snap(t, f.Path)

	rep := importLog(t, f, path)

	if rep.Agents != (interop.Count{Existing: 5}) || rep.Units != (interop.Count{Existing: 9}) ||
		rep.Conflicts != (interop.Count{Existing: 1}) || rep.StatusesChanged != 0 {
		t.Errorf("second import %+v: want everything already there", rep)
	}
	if d := before.Diff(rt.Snap(t, f.Path)); d != "" {
		t.Fatalf("importing the same log again changed the field:\n%s", d)
	}
}

func TestImportOfAGrownLogAddsWhatIsNewAndKeepsTheFieldsDecisions(t *testing.T) {
	f := newField(t)
	dir := t.TempDir()
	events := scenario()
	importLog(t, f, writeLog(t, dir, "", events...))
	c := conflicts(t, f)[0]
	winner := e2
	if _, err := f.Svc.Merge(context.Background(), operator, model.MergeRequest{ConflictID: c.ID,
		Strategy: model.ConfidenceWeighted, Resolution: model.MergeResolution{WinnerID: &winner, Rationale: "the lab controls for caches"}}); err != nil {
		t.Fatal(err)
	}

	events = append(events,
		rec("01J0EV00000000000000000E3", 60, "probe", "01J0E3000000000000000000E3", `{"topic":"checkout-p99","p99_ms":55}`),
		status("01J0EV00000000000000000R4", 61, "probe", r3, "retracted"),
		status("01J0EV00000000000000000D3", 62, "lab", d1, "committed"),
	)
	rep := importLog(t, f, writeLog(t, dir, "", events...))

	if rep.Units != (interop.Count{New: 1, Existing: 9}) || rep.StatusesChanged != 2 {
		t.Errorf("units %+v, %d statuses changed; want 1 new and 2 moved on", rep.Units, rep.StatusesChanged)
	}
	// E1 lost in the field; the log still has it committed. The field's
	// decision stands, and the pair E1–E3 is left alone.
	if rep.Conflicts != (interop.Count{New: 1, Existing: 1}) || rep.PairsSkipped != 1 {
		t.Errorf("conflicts %+v, %d pairs skipped; want E2–E3 new, E1–E2 there, E1–E3 skipped", rep.Conflicts, rep.PairsSkipped)
	}
	for id, want := range map[string]model.UnitStatus{e1: model.UnitSuperseded, e2: model.UnitContested,
		r3: model.UnitRetracted, d1: model.UnitActive} {
		if got := f.Status(t, id); got != want {
			t.Errorf("unit %s is %s, want %s", id, got, want)
		}
	}
	if u := f.Unit(t, d1); u.Mode != model.ModeCommitted {
		t.Errorf("the committed draft is mode %s", u.Mode)
	}
}

func TestAFailedImportLeavesNothingBehind(t *testing.T) {
	f := newField(t)
	path := writeLog(t, t.TempDir(), "", scenario()...)
	db, err := sql.Open("sqlite", "file:"+f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER test_fail BEFORE INSERT ON conflicts BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	before := rt.Snap(t, f.Path)

	_, err = interop.ImportAkashik(context.Background(), f.Store, readLog(t, path), clock)

	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("import: %v, want the injected failure", err)
	}
	if d := before.Diff(rt.Snap(t, f.Path)); d != "" {
		t.Fatalf("a failed import left rows behind:\n%s", d)
	}
	db.Exec(`DROP TRIGGER test_fail`)
	db.Close()
	if rep := importLog(t, f, path); rep.Units.New != 9 {
		t.Fatalf("the import after the failure added %d units, want 9", rep.Units.New)
	}
}

func TestImportIntoAReadOnlyFieldIsRefused(t *testing.T) {
	f := newField(t)
	path := writeLog(t, t.TempDir(), "", scenario()...)
	st, err := field.Open(context.Background(), f.Path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = interop.ImportAkashik(context.Background(), st, readLog(t, path), clock)
	var pe *model.Error
	if !errors.As(err, &pe) || pe.Code != model.CodeReadOnly {
		t.Fatalf("got %v, want READ_ONLY", err)
	}
}
