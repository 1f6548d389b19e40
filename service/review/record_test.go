package review_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

// finding is a valid committed RECORD request to start from.
func finding(content string, rels ...model.Relation) model.RecordRequest {
	score := 0.7
	return model.RecordRequest{Type: model.TypeFinding, Content: content,
		Intent:     model.Intent{Purpose: "report what was seen"},
		Confidence: model.Confidence{Score: &score, Reasoning: "two runs agree"},
		Relations:  rels}
}

func TestRegisterDuplicateIsAgentIDTaken(t *testing.T) {
	f := rt.New(t, rt.Policy())
	before := rt.Snap(t, f.Path)
	_, err := f.Svc.Register(context.Background(), model.Agent{ID: senior1, Role: "impostor", Authority: 4})
	pe := rt.WantError(t, err, model.CodeAgentIDTaken, "REGISTER", true)
	if !strings.Contains(pe.Message, senior1) {
		t.Fatalf("message %q should name the id", pe.Message)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("a refused REGISTER wrote:\n%s", diff)
	}
	a, err := f.Svc.Agent(context.Background(), senior1)
	if err != nil || a.Role != "senior" || a.Authority != 6 {
		t.Fatalf("senior-1 is now %+v (%v), want the original", a, err)
	}
}

func TestRegisterStoresTheAgentAndTicks(t *testing.T) {
	f := rt.New(t, rt.Policy())
	clock := f.Clock(t)
	a, err := f.Svc.Register(context.Background(), model.Agent{ID: " critic ", Role: "reviewer", Authority: 4})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "critic" || a.Kind != model.KindAgent || a.Status != model.AgentIdle {
		t.Fatalf("registered %+v, want a trimmed idle agent", a)
	}
	got, err := f.Svc.Agent(context.Background(), "critic")
	if err != nil || got.Role != "reviewer" || got.Authority != 4 || got.RegisteredAt.IsZero() {
		t.Fatalf("stored %+v (%v)", got, err)
	}
	if f.Clock(t) != clock+1 {
		t.Fatalf("clock %d after REGISTER, want %d", f.Clock(t), clock+1)
	}
	// Authority 10 belongs to people.
	_, err = f.Svc.Register(context.Background(), model.Agent{ID: "boss-bot", Role: "boss", Authority: 10})
	rt.WantError(t, err, model.CodeInvalidRequest, "REGISTER", true)
}

func TestRecordStoresUnitAndTicksOnce(t *testing.T) {
	f := rt.New(t, rt.Policy())
	clock := f.Clock(t)
	task := "task-9"
	r := finding("Latency doubled after the deploy.")
	r.Intent.TaskID = &task
	r.Confidence.Evidence = []string{"grafana panel 3"}

	res, err := f.Svc.Record(context.Background(), standard, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Epoch != clock+1 || f.Clock(t) != clock+1 || len(res.Conflicts) != 0 {
		t.Fatalf("result %+v with clock %d, want epoch %d and no conflicts", res, f.Clock(t), clock+1)
	}
	if !strings.HasPrefix(res.UnitID, "mem-") {
		t.Fatalf("unit id %q, want mem-NNN", res.UnitID)
	}
	u := f.Unit(t, res.UnitID)
	switch {
	case u.Status != model.UnitActive, u.Mode != model.ModeCommitted, u.Epoch != res.Epoch:
		t.Fatalf("stored %+v, want an active committed unit at epoch %d", u, res.Epoch)
	case u.Source.AgentID != standard || u.Source.AgentRole != "analyst" || u.Source.Timestamp.IsZero():
		t.Fatalf("source %+v, want set by the field for %s", u.Source, standard)
	case deref(u.Intent.TaskID) != task || len(u.Confidence.Evidence) != 1 || *u.Confidence.Score != 0.7:
		t.Fatalf("stored %+v, want the request's intent and confidence", u)
	}
}

func TestRecordDraftNeedsNoConfidence(t *testing.T) {
	f := rt.New(t, rt.Policy())
	res, err := f.Svc.Record(context.Background(), standard, model.RecordRequest{Mode: model.ModeDraft,
		Type: model.TypeQuestion, Content: "Is the cache warm at boot?", Intent: model.Intent{Purpose: "ask"}})
	if err != nil {
		t.Fatal(err)
	}
	if u := f.Unit(t, res.UnitID); u.Status != model.UnitDraft || u.Confidence.Score != nil {
		t.Fatalf("stored %+v, want a draft without a score", u)
	}
}

func TestRecordErrors(t *testing.T) {
	f := rt.New(t, rt.Policy())
	known := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{}).A
	over, under, nan := 1.5, -0.1, math.NaN()
	for _, tc := range []struct {
		name   string
		caller string
		edit   func(r *model.RecordRequest)
		code   model.Code
		recov  bool
	}{
		{"no purpose", standard, func(r *model.RecordRequest) { r.Intent.Purpose = "  " }, model.CodeMissingIntent, true},
		{"no score", standard, func(r *model.RecordRequest) { r.Confidence.Score = nil }, model.CodeMissingConfidence, true},
		{"no reasoning", standard, func(r *model.RecordRequest) { r.Confidence.Reasoning = "" }, model.CodeMissingConfidence, true},
		{"score above 1", standard, func(r *model.RecordRequest) { r.Confidence.Score = &over }, model.CodeInvalidConfidence, true},
		{"score below 0", standard, func(r *model.RecordRequest) { r.Confidence.Score = &under }, model.CodeInvalidConfidence, true},
		{"score NaN", standard, func(r *model.RecordRequest) { r.Confidence.Score = &nan }, model.CodeInvalidConfidence, true},
		{"draft score above 1", standard, func(r *model.RecordRequest) { r.Mode = model.ModeDraft; r.Confidence.Score = &over }, model.CodeInvalidConfidence, true},
		{"unknown type", standard, func(r *model.RecordRequest) { r.Type = "rumour" }, model.CodeInvalidType, true},
		{"unregistered", "ghost", func(r *model.RecordRequest) {}, model.CodeAgentNotRegistered, true},
		{"no caller", "", func(r *model.RecordRequest) {}, model.CodeAgentNotRegistered, true},
		{"missing target", standard, func(r *model.RecordRequest) {
			r.Relations = []model.Relation{{Type: model.RelSupports, TargetID: known}, {Type: model.RelContradicts, TargetID: "mem-999"}}
		}, model.CodeUnitNotFound, true},
		{"observer", observer, func(r *model.RecordRequest) {}, model.CodeNotPermitted, false},
		{"unknown relation", standard, func(r *model.RecordRequest) {
			r.Relations = []model.Relation{{Type: "likes", TargetID: known}}
		}, model.CodeInvalidRequest, true},
		{"unknown conflict type", standard, func(r *model.RecordRequest) { r.ConflictType = "moral" }, model.CodeInvalidRequest, true},
		{"empty content", standard, func(r *model.RecordRequest) { r.Content = "\t" }, model.CodeInvalidRequest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := finding("Something was seen.")
			tc.edit(&r)
			before := rt.Snap(t, f.Path)
			_, err := f.Svc.Record(context.Background(), tc.caller, r)
			rt.WantError(t, err, tc.code, "RECORD", tc.recov)
			if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
				t.Fatalf("a refused RECORD wrote:\n%s", diff)
			}
		})
	}
}

func TestRecordContradictsOpensExplicitConflict(t *testing.T) {
	f := rt.New(t, rt.Policy())
	first, err := f.Svc.Record(context.Background(), senior2, finding("The cache is warm at boot."))
	if err != nil {
		t.Fatal(err)
	}
	r := finding("The cache is cold at boot.", model.Relation{Type: model.RelContradicts, TargetID: first.UnitID,
		Description: "boot-time cache state"})
	r.ConflictType = model.ConflictInterpretive

	res, err := f.Svc.Record(context.Background(), standard, r)
	if err != nil {
		t.Fatal(err)
	}

	if len(res.Conflicts) != 1 {
		t.Fatalf("%d conflicts opened, want 1", len(res.Conflicts))
	}
	id := res.Conflicts[0].ID
	if !strings.HasPrefix(id, "conflict-") {
		t.Fatalf("conflict id %q, want conflict-NNN", id)
	}
	d := wantConflict(t, f, id, model.StatusDetected, 1)
	c := d.Conflict
	if c.UnitA != first.UnitID || c.UnitB != res.UnitID || c.DetectedBy != model.DetectedExplicit ||
		c.Type != model.ConflictInterpretive || c.Epoch != res.Epoch || c.Description != "boot-time cache state" {
		t.Fatalf("stored conflict %+v", c)
	}
	wantUnitStatus(t, f, first.UnitID, model.UnitContested)
	wantUnitStatus(t, f, res.UnitID, model.UnitContested)
	rec := wantLogged(t, f, id, res.Epoch, "DETECT", standard, authors)
	for _, n := range rec.notes {
		if n.Event != model.EventConflictDetected || !n.RequiresAction || deref(n.MemoryUnitID) != res.UnitID {
			t.Fatalf("notification %+v, want %s about %s requiring action", n, model.EventConflictDetected, res.UnitID)
		}
	}
}

func TestRecordRepeatedContradictsOpensOneConflict(t *testing.T) {
	f := rt.New(t, rt.Policy())
	first, err := f.Svc.Record(context.Background(), senior2, finding("Up."))
	if err != nil {
		t.Fatal(err)
	}
	rel := model.Relation{Type: model.RelContradicts, TargetID: first.UnitID}
	res, err := f.Svc.Record(context.Background(), standard, finding("Down.", rel, rel))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Unit(t, res.UnitID).Relations); n != 1 || len(res.Conflicts) != 1 {
		t.Fatalf("the same relation twice gave %d relations and %d conflicts, want 1 and 1", n, len(res.Conflicts))
	}
}
