package review_test

import (
	"context"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

func TestUnitShowsRelationsBothWaysAndItsConflicts(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Supporters: 2}, rt.Side{})
	d, err := f.Svc.Unit(context.Background(), p.A)
	if err != nil {
		t.Fatal(err)
	}
	if d.Unit.ID != p.A || d.Agent == nil || d.Agent.ID != rt.Senior2 {
		t.Errorf("unit %s by %+v, want %s by %s", d.Unit.ID, d.Agent, p.A, rt.Senior2)
	}
	var from []string
	for _, l := range d.Incoming {
		from = append(from, string(l.Type)+":"+l.From)
	}
	wantStrings(t, "incoming relations", from, []string{"contradicts:" + p.B, "supports:" + p.SupportersA[0], "supports:" + p.SupportersA[1]})
	if len(d.Conflicts) != 1 || d.Conflicts[0].ID != p.Conflict {
		t.Errorf("conflicts %+v, want %s", d.Conflicts, p.Conflict)
	}
	b, err := f.Svc.Unit(context.Background(), p.B)
	if err != nil || len(b.Unit.Relations) != 1 || b.Unit.Relations[0].TargetID != p.A || len(b.Incoming) != 0 {
		t.Errorf("unit B: %+v, %v; want its contradicts relation to A and nothing pointing at it", b, err)
	}
	_, err = f.Svc.Unit(context.Background(), "mem-999")
	rt.WantError(t, err, model.CodeUnitNotFound, model.OpAttune, true)
}
