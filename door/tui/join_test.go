package tui

import (
	"context"
	"path/filepath"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	arbiterfield "arbiter/store/field"
)

// A conflict a join opened says so under its description, and its
// history reads the join.
func TestAConflictFromAJoinSaysSo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	create := func(name string) (*review.Service, func()) {
		st, err := arbiterfield.Create(ctx, filepath.Join(dir, name), model.DefaultPolicy())
		if err != nil {
			t.Fatal(err)
		}
		return review.New(st), func() { st.Close() }
	}
	svc, closeField := create("field.db")
	defer closeField()
	for _, a := range []model.Agent{{ID: "maya", Role: "operator", Kind: model.KindHuman, Authority: 10}, {ID: "ana", Role: "analyst", Authority: 4}} {
		if _, err := svc.Register(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	score := 0.7
	rec := func(s *review.Service, content string, rels ...model.Relation) {
		if _, err := s.Record(ctx, "ana", model.RecordRequest{Type: model.TypeFinding, Content: content, Relations: rels,
			Intent: model.Intent{Purpose: "p"}, Confidence: model.Confidence{Score: &score, Reasoning: "r"}}); err != nil {
			t.Fatal(err)
		}
	}
	rec(svc, "p99 is 40 ms")
	forkSt, err := arbiterfield.Create(ctx, filepath.Join(dir, "site-b.db"), model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	defer forkSt.Close()
	if _, err := svc.Fork(ctx, "maya", forkSt); err != nil {
		t.Fatal(err)
	}
	sup := model.Relation{Type: model.RelSupersedes, TargetID: "mem-001"}
	rec(review.New(forkSt), "p99 is 42 ms in the lab", sup)
	rec(svc, "p99 is 55 ms in production", sup)
	if rep, err := svc.Join(ctx, "maya", forkSt, review.JoinOptions{BaseEpoch: -1}); err != nil || len(rep.RevisionConflicts) != 1 {
		t.Fatalf("join: %+v (%v)", rep, err)
	}
	s := start(t, svc, "maya", 150, 40)
	s.waitFor("conflict-001")
	s.keys("enter")
	s.waitFor("Joined: came from joining", "both sides revised one unit from before the fork")
}
