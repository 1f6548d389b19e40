package postgres_test

import (
	"context"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

// With the roles of docs/postgres.md: a lead's login holds, writes and
// takes back her own decisions in their undo window, never another's; a
// sweep from an operator's login leaves a decision held for someone it
// may not act as to one who may, and the administrator's (arbiter
// serve's) carries it out as its person.
func TestHeldDecisionsAreTheirPersonsOwn(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	p := tm.f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	v := tm.f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := tm.f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: v.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "the leads"}}); err != nil {
		t.Fatal(err)
	}
	lee := as(t, tm.lee)
	ballot := model.HeldRequests{Votes: []model.VoteRequest{{ConflictID: v.Conflict, Choice: "A", Rationale: "A holds"}}}

	ids := review.NewHeldIDs(1)
	if err := lee.Hold(ctx, rt.Lead1, ids, ballot, time.Second); err != nil {
		t.Fatalf("lee holds her ballot: %v", err)
	}
	if n, err := lee.Unhold(ctx, rt.Lead1, ids); err != nil || n != 1 {
		t.Fatalf("lee takes it back: %d, %v", n, err)
	}
	if err := lee.Hold(ctx, rt.Operator, review.NewHeldIDs(1), model.HeldRequests{Merges: []model.MergeRequest{
		{ConflictID: p.Conflict, Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "x"}}}}, time.Second); !model.HasCode(err, model.CodeNotPermitted) {
		t.Fatalf("lee holds a decision as the operator: %v, want NOT_PERMITTED", err)
	}
	ids = review.NewHeldIDs(1)
	if err := lee.Hold(ctx, rt.Lead1, ids, ballot, time.Second); err != nil {
		t.Fatal(err)
	}
	if res := lee.WriteHeld(ctx, rt.Lead1, ids); len(res) != 1 || res[0].Err != nil || res[0].Vote == nil {
		t.Fatalf("lee writes her held ballot: %+v", res)
	}

	// Held by the operator; swept by lee's login, then the administrator's.
	maya := as(t, tm.maya)
	ids = review.NewHeldIDs(1)
	if err := maya.Hold(ctx, rt.Operator, ids, model.HeldRequests{Merges: []model.MergeRequest{
		{ConflictID: p.Conflict, Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "both wrong"}}}}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Unhold(ctx, rt.Lead1, ids); !model.HasCode(err, model.CodeNotPermitted) {
		t.Fatalf("lee takes back the operator's held decision: %v, want NOT_PERMITTED", err)
	}
	later := func(svc *review.Service) *review.Service {
		return svc.WithClock(func() time.Time { return time.Now().Add(time.Hour) })
	}
	rep, err := later(as(t, tm.lee)).Sweep(ctx)
	if err != nil && !model.HasCode(err, model.CodeNotPermitted) {
		t.Fatalf("lee's sweep: %v", err)
	}
	if len(rep.Held) != 0 {
		t.Fatalf("lee's sweep carried out the operator's held decision: %+v", rep.Held)
	}
	rep, err = later(review.New(tm.f.Store)).Sweep(ctx)
	if err != nil || len(rep.Held) != 1 || !rep.Held[0].Written {
		t.Fatalf("the administrator's sweep: %+v, %v", rep.Held, err)
	}
	var c model.Conflict
	if err := tm.f.Store.Read(ctx, func(tx store.Tx) (err error) { c, err = tx.Conflict(p.Conflict); return err }); err != nil {
		t.Fatal(err)
	}
	if c.Resolution == nil || c.Resolution.ResolvedBy != rt.Operator {
		t.Fatalf("the held decision, swept: %+v", c.Resolution)
	}
}
