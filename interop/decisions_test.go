package interop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"arbiter/internal/akashiklog"
	"arbiter/interop"
	"arbiter/model"
	rt "arbiter/review/reviewtest"
)

const goodLine = `{"protocol":"akashik","version":"0.1.0","id":"01J0MSG0000000000000000001","operation":"MERGE","agent_id":"maya","session_id":null,"epoch":7,"payload":{"conflict_id":"conflict-001","strategy":"dismiss","resolution":{"winner_id":null,"synthesis":null,"rationale":"not a conflict"},"expected_version":1}}`

func TestReadDecisionsSkipsATornLastLineAndNamesAnyOtherBadLine(t *testing.T) {
	second := strings.Replace(goodLine, "0000000001", "0000000002", 1)
	ds, err := interop.ReadDecisions(strings.NewReader(goodLine + "\n\n" + second + "\n" + `{"protocol":"aka`))
	if err != nil || len(ds.Messages) != 2 || ds.TornLine != 4 || ds.Messages[1].Line != 3 ||
		ds.Messages[0].Request.ConflictID != "conflict-001" || ds.Messages[0].Request.ExpectedVersion != 1 {
		t.Fatalf("read %+v, %v: want two messages and the torn line 4", ds, err)
	}
	for name, tc := range map[string]struct {
		text string
		line int
		want string
	}{
		"torn line before the last": {`{"protocol"` + "\n" + goodLine + "\n", 1, "invalid JSON"},
		"another protocol":          {strings.Replace(goodLine, `"akashik"`, `"other"`, 1), 1, "protocol"},
		"another version":           {goodLine + "\n" + strings.Replace(goodLine, "0.1.0", "0.2.0", 1), 2, "version"},
		"not a MERGE":               {strings.Replace(goodLine, `"MERGE"`, `"RECORD"`, 1), 1, "RECORD"},
		"no conflict":               {strings.Replace(goodLine, `"conflict-001"`, `""`, 1), 1, "conflict_id"},
		"the same id twice":         {goodLine + "\n" + goodLine, 2, "first on line 1"},
	} {
		_, err := interop.ReadDecisions(strings.NewReader(tc.text))
		var le *akashiklog.LineError
		if !errors.As(err, &le) || le.Line != tc.line || !strings.Contains(le.Reason, tc.want) {
			t.Errorf("%s: got %v, want line %d about %q", name, err, tc.line, tc.want)
		}
	}
}

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
