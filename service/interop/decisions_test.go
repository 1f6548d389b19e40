package interop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/interop"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

func TestDecisionHistoryListsMergesAndBallotsAsMergeMessages(t *testing.T) {
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	p1 := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	winner := p1.A
	if _, err := f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p1.Conflict, Strategy: model.ConfidenceWeighted,
		Resolution: model.MergeResolution{WinnerID: &winner, Rationale: "higher score"}}); err != nil {
		t.Fatal(err)
	}
	p2 := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p2.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "let the leads decide"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Svc.Vote(ctx, rt.Lead1, model.VoteRequest{ConflictID: p2.Conflict, Choice: "B", Rationale: "B holds"}); err != nil {
		t.Fatal(err)
	}

	var got []model.Envelope
	collect := func(e model.Envelope) error { got = append(got, e); return nil }
	if err := interop.DecisionHistory(ctx, f.Store, collect); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d decisions, want 3: %+v", len(got), got)
	}
	var recs []model.DecisionRecord
	for _, e := range got {
		if e.Protocol != "akashik" || e.Version != "0.1.0" || e.Operation != "MERGE" || e.SessionID != nil || e.ID == "" {
			t.Errorf("envelope %+v", e)
		}
		var r model.DecisionRecord
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if r := recs[0]; got[0].AgentID != rt.Senior1 || r.ConflictID != p1.Conflict || r.Strategy != model.ConfidenceWeighted ||
		r.Result == nil || r.Result.Status != model.StatusResolved || len(r.Result.SupersededUnits) != 1 || r.Result.SupersededUnits[0] != p1.B {
		t.Errorf("first decision %+v", r)
	}
	if r := recs[1]; r.Strategy != model.Vote || r.Resolution.WinnerID != nil || r.Result.Status != model.StatusPendingVote {
		t.Errorf("opening the vote: %+v", r)
	}
	if b, ok := recs[2].Ballot(); !ok || got[2].AgentID != rt.Lead1 || b.Choice != p2.B || recs[2].Result.Status != model.StatusPendingVote {
		t.Errorf("the ballot: %+v", recs[2])
	}

	// The same ids on every run.
	var again []model.Envelope
	interop.DecisionHistory(ctx, f.Store, func(e model.Envelope) error { again = append(again, e); return nil })
	for i := range got {
		if got[i].ID != again[i].ID {
			t.Errorf("message %d has id %s, then %s", i, got[i].ID, again[i].ID)
		}
	}
}

func TestDecisionHistoryStopsAtAPayloadThatDoesNotDecode(t *testing.T) {
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	var id int64
	if err := f.Store.Write(ctx, func(tx store.Tx) (err error) {
		id, err = tx.EventAppend(model.Event{Epoch: 9, Operation: model.OpMerge, AgentID: rt.Senior1, ConflictID: &p.Conflict,
			At: time.Now(), Payload: json.RawMessage(`{"request": "keep A", "status": "resolved"}`)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got []model.Envelope
	err := interop.DecisionHistory(ctx, f.Store, func(e model.Envelope) error { got = append(got, e); return nil })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("event %d", id)) {
		t.Fatalf("DecisionHistory over an unreadable MERGE: %v (%d decisions), want an error naming event %d", err, len(got), id)
	}
	if len(got) != 0 {
		t.Errorf("%d decisions before the unreadable one, want 0", len(got))
	}
}
