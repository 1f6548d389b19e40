package review_test

import (
	"context"
	"testing"

	"arbiter/model"
	rt "arbiter/review/reviewtest"
)

func TestMergeRefusesAWinnerAlreadySuperseded(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	setStatus(t, f, p.A, model.UnitSuperseded) // another decision took it out

	_, err := f.Svc.Merge(context.Background(), rt.Senior1, req(p.Conflict, model.ConfidenceWeighted, p.A, "higher score"))

	e := rt.WantError(t, err, model.CodeMergeFailed, "MERGE", true)
	if e.SuggestedAction == "" {
		t.Errorf("the refusal should suggest what to do instead: %+v", e)
	}
	if d := f.Detail(t, p.Conflict); d.Conflict.Status != model.StatusDetected || f.Status(t, p.B) != model.UnitContested {
		t.Errorf("a refused decision changed the field: %s, B %s", d.Conflict.Status, f.Status(t, p.B))
	}
	// Dismissing it is still possible.
	merge(t, f, rt.Senior1, req(p.Conflict, model.Dismiss, "", "A is gone already"))
}
