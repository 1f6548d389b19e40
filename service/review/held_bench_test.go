package review_test

import (
	"context"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
)

// BenchmarkScreenDecision is what a decision made on the screen costs the
// field now that its undo window is held there: MERGE alone ("direct",
// as before), against holding it and then writing it, its row removed in
// the same transaction ("held").
func BenchmarkScreenDecision(b *testing.B) {
	ctx := context.Background()
	for _, held := range []bool{false, true} {
		name := "direct"
		if held {
			name = "held"
		}
		b.Run(name, func(b *testing.B) {
			f := rt.New(b, rt.Policy())
			pairs := make([]rt.Pair, b.N)
			for i := range pairs {
				pairs[i] = f.Contradict(b, model.ConflictFactual, rt.Side{}, rt.Side{})
			}
			b.ResetTimer()
			for i := range b.N {
				req := model.MergeRequest{ConflictID: pairs[i].Conflict, Strategy: model.Dismiss,
					Resolution: model.MergeResolution{Rationale: "both wrong"}}
				if !held {
					if _, err := f.Svc.Merge(ctx, rt.Operator, req); err != nil {
						b.Fatal(err)
					}
					continue
				}
				ids := review.NewHeldIDs(1)
				if err := f.Svc.Hold(ctx, rt.Operator, ids, model.HeldRequests{Merges: []model.MergeRequest{req}}, 5*time.Second); err != nil {
					b.Fatal(err)
				}
				if res := f.Svc.WriteHeld(ctx, rt.Operator, ids); res[0].Err != nil {
					b.Fatal(res[0].Err)
				}
			}
		})
	}
}
