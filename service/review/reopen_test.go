package review_test

import (
	"context"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

func reopen(t *testing.T, f *rt.Field, caller, conflict string) model.ReopenResponse {
	t.Helper()
	resp, err := f.Svc.Reopen(context.Background(), caller, model.ReopenRequest{ConflictID: conflict, Rationale: "decided on a misreading"})
	if err != nil {
		t.Fatalf("%s reopening %s: %v", caller, conflict, err)
	}
	return resp
}

// Decide, reopen, decide the other way: every unit ends where the second
// decision puts it, and the log holds all three steps.
func TestReopenRoundTripsToTheOtherDecision(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	merge(t, f, rt.Senior1, req(c.Conflict, model.ConfidenceWeighted, c.A, "the lab run is controlled"))
	wantUnitStatus(t, f, c.B, model.UnitSuperseded)

	resp := reopen(t, f, rt.Operator, c.Conflict)
	if resp.Conflict.Status != model.StatusEscalated || resp.Conflict.Resolution != nil || resp.Conflict.Escalation.By != rt.Operator ||
		resp.Undone.Strategy != model.ConfidenceWeighted || len(resp.Restored) != 1 || resp.Restored[0] != c.B || resp.Retracted != nil {
		t.Errorf("reopen response %+v", resp)
	}
	wantStrings(t, "notified", resp.NotifiedAgents, sorted(rt.Operator, rt.Senior1, rt.Senior2, rt.Standard))
	wantUnitStatus(t, f, c.A, model.UnitContested)
	wantUnitStatus(t, f, c.B, model.UnitContested)

	w := c.B
	merge(t, f, rt.Operator, model.MergeRequest{ConflictID: c.Conflict, Strategy: model.Authority,
		Resolution: model.MergeResolution{WinnerID: &w, Rationale: "production numbers win"}})
	wantUnitStatus(t, f, c.A, model.UnitSuperseded)
	wantUnitStatus(t, f, c.B, model.UnitActive)
	d := f.Detail(t, c.Conflict)
	var ops []string
	for _, e := range d.Events {
		ops = append(ops, e.Operation)
	}
	wantStrings(t, "events", ops, []string{model.OpDetect, model.OpMerge, model.OpReopen, model.OpMerge})
}

func TestReopenOfASynthesisRetractsTheNewUnit(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	m := merge(t, f, rt.Senior1, synthesisReq(c.Conflict, "both hold, in different places", "reconcile"))
	resp := reopen(t, f, rt.Operator, c.Conflict)
	if resp.Retracted == nil || *resp.Retracted != *m.SideEffects.NewUnitID || len(resp.Restored) != 2 {
		t.Errorf("reopen response %+v", resp)
	}
	wantUnitStatus(t, f, *m.SideEffects.NewUnitID, model.UnitRetracted)
	wantUnitStatus(t, f, c.A, model.UnitContested)
	wantUnitStatus(t, f, c.B, model.UnitContested)
}

func TestReopenIsRefusedWhenALaterDecisionDependsOnIt(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	m := merge(t, f, rt.Senior1, synthesisReq(c.Conflict, "both hold", "reconcile"))
	// A new unit contradicts the synthesis: its conflict depends on it.
	later := f.ContradictUnit(t, *m.SideEffects.NewUnitID, rt.Side{})
	before := rt.Snap(t, f.Path)
	_, err := f.Svc.Reopen(context.Background(), rt.Operator, model.ReopenRequest{ConflictID: c.Conflict, Rationale: "undo"})
	if pe := rt.WantError(t, err, model.CodeInvalidTransition, model.OpReopen, true); !strings.Contains(pe.Message, later) {
		t.Errorf("the refusal %q does not name %s", pe.Message, later)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Errorf("a refused reopen changed the field:\n%s", diff)
	}
}

func TestOnlyAPersonReopensAndOnlyAResolvedConflict(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	_, err := f.Svc.Reopen(context.Background(), rt.Operator, model.ReopenRequest{ConflictID: c.Conflict, Rationale: "undo"})
	rt.WantError(t, err, model.CodeInvalidTransition, model.OpReopen, true)
	merge(t, f, rt.Senior1, req(c.Conflict, model.Dismiss, "", "not a conflict"))
	_, err = f.Svc.Reopen(context.Background(), rt.Senior1, model.ReopenRequest{ConflictID: c.Conflict, Rationale: "undo"})
	rt.WantError(t, err, model.CodeNotPermitted, model.OpReopen, false)
	_, err = f.Svc.Reopen(context.Background(), rt.Operator, model.ReopenRequest{ConflictID: c.Conflict, Rationale: " "})
	rt.WantError(t, err, model.CodeInvalidRequest, model.OpReopen, true)
	resp := reopen(t, f, rt.Operator, c.Conflict)
	if len(resp.Restored) != 0 || resp.Conflict.Status != model.StatusEscalated {
		t.Errorf("reopening a dismissal: %+v", resp)
	}
}
