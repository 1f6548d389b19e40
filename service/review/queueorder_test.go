package review_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store/field"
)

// The queue ordered for a person lists first what model.TurnOf says is
// theirs, and "mine only" lists exactly that, for everyone of the demo.
func TestTheQueueForAPersonPutsTheirTurnFirst(t *testing.T) {
	ctx := context.Background()
	st, err := field.Create(ctx, filepath.Join(t.TempDir(), "demo.db"), demo.Policy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := review.New(st)
	if err := demo.Populate(ctx, svc); err != nil {
		t.Fatal(err)
	}
	p, _ := svc.Policy(ctx)
	agents, _ := svc.Agents(ctx)
	now := time.Now()
	sawMine := 0
	for _, a := range agents {
		voted, err := svc.VotedOn(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		q := model.ListQuery{Statuses: model.ReviewStatuses, For: model.ViewerOf(p, a, now)}
		rows, err := svc.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := svc.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses})
		if len(rows) != len(all) {
			t.Fatalf("%s: %d rows ordered, %d in the queue", a.ID, len(rows), len(all))
		}
		mine, others := 0, false
		for _, r := range rows {
			turn := model.TurnOf(p, a, r, voted[r.ID]) != model.TurnNone
			switch {
			case turn && others:
				t.Errorf("%s: %s is theirs but comes after someone else's", a.ID, r.ID)
			case turn:
				mine++
			default:
				others = true
			}
		}
		q.Mine = true
		only, err := svc.List(ctx, q)
		if err != nil || len(only) != mine {
			t.Errorf("%s: mine only lists %d, %v; want the %d that are theirs", a.ID, len(only), err, mine)
		}
		sawMine += mine
	}
	if sawMine == 0 {
		t.Fatal("nobody had anything to do: the test proves nothing")
	}
}
