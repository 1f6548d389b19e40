package review_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

// The cast of every field (see reviewtest).
const (
	operator = rt.Operator
	senior1  = rt.Senior1
	senior2  = rt.Senior2
	standard = rt.Standard
	observer = rt.Observer
	lead1    = rt.Lead1
	lead2    = rt.Lead2
	lead3    = rt.Lead3
)

// authors are who record A and B by default: every decision tells them.
var authors = []string{senior2, standard}

// req builds a MERGE request; winner "" means none.
func req(conflict string, s model.Strategy, winner, rationale string) model.MergeRequest {
	r := model.MergeRequest{ConflictID: conflict, Strategy: s, Resolution: model.MergeResolution{Rationale: rationale}}
	if winner != "" {
		r.Resolution.WinnerID = &winner
	}
	return r
}

func synthesisReq(conflict, text, rationale string) model.MergeRequest {
	return model.MergeRequest{ConflictID: conflict, Strategy: model.Synthesis,
		Resolution: model.MergeResolution{Synthesis: &text, Rationale: rationale}}
}

func merge(t *testing.T, f *rt.Field, caller string, r model.MergeRequest) model.MergeResponse {
	t.Helper()
	resp, err := f.Svc.Merge(context.Background(), caller, r)
	if err != nil {
		t.Fatalf("%s merging %s with %s: %v", caller, r.ConflictID, r.Strategy, err)
	}
	return resp
}

func vote(t *testing.T, f *rt.Field, voter, conflict, choice string) model.VoteResponse {
	t.Helper()
	resp, err := f.Svc.Vote(context.Background(), voter, model.VoteRequest{ConflictID: conflict, Choice: choice,
		Rationale: voter + " thinks " + choice + " holds"})
	if err != nil {
		t.Fatalf("%s voting %s on %s: %v", voter, choice, conflict, err)
	}
	return resp
}

// openVote puts a fresh factual contradiction to a vote and returns it.
func openVote(t *testing.T, f *rt.Field) rt.Pair {
	t.Helper()
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	resp := merge(t, f, senior1, req(p.Conflict, model.Vote, "", "let the leads decide"))
	if resp.Status != model.StatusPendingVote {
		t.Fatalf("opening a vote gave %s", resp.Status)
	}
	return p
}

func wantStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if got == nil {
		got = []string{}
	}
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

func sorted(s ...string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func wantUnitStatus(t *testing.T, f *rt.Field, id string, want model.UnitStatus) {
	t.Helper()
	if got := f.Status(t, id); got != want {
		t.Fatalf("unit %s is %s, want %s", id, got, want)
	}
}

// decisionRecord is what the field logged and sent for the write at one
// epoch about one conflict.
type decisionRecord struct {
	events   []model.Event
	notified []string // agents with a notification, sorted
	notes    []model.Notification
}

func recordedAt(t *testing.T, f *rt.Field, conflict string, epoch int64) decisionRecord {
	t.Helper()
	d := f.Detail(t, conflict)
	var r decisionRecord
	for _, e := range d.Events {
		if e.Epoch == epoch {
			r.events = append(r.events, e)
		}
	}
	for _, n := range d.Notifications {
		if n.Epoch == epoch {
			r.notes = append(r.notes, n)
			r.notified = append(r.notified, n.AgentID)
		}
	}
	slices.Sort(r.notified)
	return r
}

// wantLogged checks that the write at epoch left exactly one event, of
// operation op by agent, and one notification to each of notified.
func wantLogged(t *testing.T, f *rt.Field, conflict string, epoch int64, op, agent string, notified []string) decisionRecord {
	t.Helper()
	r := recordedAt(t, f, conflict, epoch)
	if len(r.events) != 1 {
		t.Fatalf("%d events at epoch %d for %s, want 1: %+v", len(r.events), epoch, conflict, r.events)
	}
	if e := r.events[0]; e.Operation != op || e.AgentID != agent || e.ConflictID == nil || *e.ConflictID != conflict {
		t.Fatalf("event %+v, want %s by %s about %s", e, op, agent, conflict)
	}
	wantStrings(t, "notifications at epoch", r.notified, notified)
	return r
}

// importPair writes two contradicting units the way another program may:
// ids of its own, epochs of its own, one transaction (docs/field-format.md).
func importPair(t *testing.T, f *rt.Field, idA string, epochA int64, idB string, epochB int64) string {
	t.Helper()
	var conflictID string
	err := f.Store.Write(context.Background(), func(tx store.Tx) error {
		score := 0.5
		for _, u := range []struct {
			id    string
			epoch int64
			by    string
			rels  []model.Relation
		}{
			{idA, epochA, senior2, nil},
			{idB, epochB, standard, []model.Relation{{Type: model.RelContradicts, TargetID: idA}}},
		} {
			if _, err := tx.UnitInsert(model.Unit{ID: u.id, Mode: model.ModeCommitted, Type: model.TypeFinding,
				Content: "imported " + u.id, Intent: model.Intent{Purpose: "import"},
				Confidence: model.Confidence{Score: &score, Reasoning: "imported"},
				Source:     model.Source{AgentID: u.by, AgentRole: "imported", Timestamp: time.Now()}, Relations: u.rels,
				Status: model.UnitContested, Epoch: u.epoch}); err != nil {
				return err
			}
		}
		var err error
		conflictID, err = tx.ConflictInsert(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: idA, UnitB: idB, DetectedBy: model.DetectedExplicit, DetectedAt: time.Now(), Epoch: max(epochA, epochB)})
		if err != nil {
			return err
		}
		_, err = tx.EpochWitness(max(epochA, epochB))
		return err
	})
	if err != nil {
		t.Fatalf("import %s and %s: %v", idA, idB, err)
	}
	return conflictID
}

// failInserts makes every insert into table fail (reviewtest.FailInserts).
func failInserts(t *testing.T, f *rt.Field, table string) { rt.FailInserts(t, f, table) }

// setStatus changes a unit's status directly, as a retraction or another
// program would.
func setStatus(t *testing.T, f *rt.Field, id string, s model.UnitStatus) {
	t.Helper()
	if err := f.Store.Write(context.Background(), func(tx store.Tx) error { return tx.UnitSetStatus(id, s) }); err != nil {
		t.Fatalf("set %s %s: %v", id, s, err)
	}
}
