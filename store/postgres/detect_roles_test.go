package postgres_test

import (
	"context"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

// With the roles of docs/postgres.md, detection works from each login as
// it does from the administrator's (who sets the policy): an agent's
// RECORD opens the
// contradiction nobody declared; the operator's dismissal keeps the pair,
// her reopening forgets it, and her scan keeps its place; an agent of
// authority 4 may not scan.
func TestDetectionWorksThroughTheRoles(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	maya, bot, sen := as(t, tm.maya), as(t, tm.bot), as(t, tm.sen)
	if _, err := tm.f.Svc.UpdatePolicy(ctx, rt.Operator, func(p *model.Policy) error {
		p.DetectionSensitivity = model.SensitivityMedium
		return nil
	}); err != nil {
		t.Fatalf("detection turned on: %v", err)
	}
	if _, err := sen.Record(ctx, rt.Senior1, finding("Our monthly AWS bill for the data platform is about $48k.")); err != nil {
		t.Fatal(err)
	}
	res, err := bot.Record(ctx, rt.Standard, finding("The data platform costs us $81k a month on AWS, mostly EMR."))
	if err != nil {
		t.Fatalf("an agent's RECORD that detects: %v", err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0].Detection == nil {
		t.Fatalf("the agent's RECORD opened %+v, want one detected conflict", res.Conflicts)
	}
	c := res.Conflicts[0]
	if _, err := maya.Merge(ctx, rt.Operator, model.MergeRequest{ConflictID: c.ID, Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "not a contradiction"}}); err != nil {
		t.Fatalf("the operator dismisses it: %v", err)
	}
	dismissed := func() bool {
		var ok bool
		if err := tm.f.Store.Read(ctx, func(tx store.Tx) (err error) { ok, err = tx.DetectDismissed(c.UnitA, c.UnitB); return err }); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !dismissed() {
		t.Fatal("the operator's dismissal did not keep the pair")
	}
	if _, err := maya.Reopen(ctx, rt.Operator, model.ReopenRequest{ConflictID: c.ID, Rationale: "it is one"}); err != nil {
		t.Fatalf("the operator reopens it: %v", err)
	}
	if dismissed() {
		t.Fatal("the reopening kept the pair as not a contradiction")
	}
	scan, err := maya.DetectScan(ctx, rt.Operator, model.DetectRequest{Mode: model.DetectScan}, nil)
	if err != nil || scan.Scan == nil || !scan.Scan.Finished() || scan.Scan.Done != 2 {
		t.Fatalf("the operator's scan: %+v, %v", scan.Scan, err)
	}
	if _, err := bot.DetectScan(ctx, rt.Standard, model.DetectRequest{Mode: model.DetectScan}, nil); !model.HasCode(err, model.CodeNotPermitted) {
		t.Fatalf("a scan by an agent of authority 4: %v, want NOT_PERMITTED", err)
	}
}
