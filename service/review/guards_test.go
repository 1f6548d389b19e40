package review_test

import (
	"context"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
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

func TestVoteIsNotOpenedWhenTooFewMayVote(t *testing.T) {
	p := rt.Policy()
	p.VoterRoles = []string{"lead"} // lead-1..3: three voters
	p.Quorum = 4
	f := rt.New(t, p)
	c := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})

	_, err := f.Svc.Merge(context.Background(), rt.Senior1, req(c.Conflict, model.Vote, "", "let the leads decide"))

	e := rt.WantError(t, err, model.CodeMergeFailed, "MERGE", true)
	if !strings.Contains(e.Message, "quorum of 4") || !strings.Contains(e.Message, "only 3") {
		t.Errorf("message = %q", e.Message)
	}
	if d := f.Detail(t, c.Conflict); d.Conflict.Status != model.StatusDetected {
		t.Errorf("status = %s, want detected", d.Conflict.Status)
	}
}

func TestContradictingASupersededUnitOpensNoConflict(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	merge(t, f, rt.Senior1, req(c.Conflict, model.ConfidenceWeighted, c.A, "higher score"))

	res, err := f.Svc.Record(context.Background(), rt.Standard, model.RecordRequest{
		Type: model.TypeFinding, Content: "B was right after all", Intent: model.Intent{Purpose: "reopen"},
		Confidence: model.Confidence{Score: model.Ptr(0.5), Reasoning: "hunch"},
		Relations:  []model.Relation{{Type: model.RelContradicts, TargetID: c.B}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 0 {
		t.Errorf("a superseded unit cannot be contested: %+v", res.Conflicts)
	}
	if got := f.Unit(t, res.UnitID); len(got.Relations) != 1 || got.Relations[0].TargetID != c.B {
		t.Errorf("the relation itself is recorded: %+v", got.Relations)
	}
}
