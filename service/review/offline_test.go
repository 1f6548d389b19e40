package review_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// offlineCopy copies the live field into a new file, as arbiter copy
// does, and opens the copy read-only with a decisions file, as a person
// triaging on a laptop would. (A byte copy of a live SQLite field is not
// a field: what the writer has not checkpointed yet is in its -wal file,
// and a reader of an older snapshot can keep the first page there for
// as long as it reads.)
func offlineCopy(t *testing.T, f *rt.Field) (*review.Service, string, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	cp := filepath.Join(dir, "copy.db")
	dst, err := field.Create(ctx, cp, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Copy(ctx, f.Store, dst); err != nil {
		t.Fatalf("copy the field: %v", err)
	}
	dst.Close()
	st, err := field.Open(ctx, cp, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open the copy read-only: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	out := filepath.Join(dir, "decisions.jsonl")
	return review.New(st).WithDecisionsOut(out), cp, out
}

func readDecisions(t *testing.T, path string) []model.Envelope {
	t.Helper()
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []model.Envelope
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var e model.Envelope
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("decisions file line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func TestOfflineMergeIsCheckedByTheLiveRulesThenWrittenAsAMergeMessage(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	svc, cp, out := offlineCopy(t, f)
	before := rt.Snap(t, cp)
	ctx := context.Background()

	if ro, why := svc.ReadOnly(); ro {
		t.Fatalf("a read-only field with a decisions file should take decisions, got read-only (%s)", why)
	}
	// The same refusals as live, at once, and nothing written.
	_, err := svc.Merge(ctx, standard, req(p.Conflict, model.ConfidenceWeighted, p.A, "higher score"))
	rt.WantError(t, err, model.CodeNotPermitted, "MERGE", false)
	_, err = svc.Merge(ctx, senior1, req(p.Conflict, model.ConfidenceWeighted, p.B, "B, please"))
	rt.WantError(t, err, model.CodeMergeFailed, "MERGE", true)
	if got := readDecisions(t, out); len(got) != 0 {
		t.Fatalf("refused decisions reached the file: %+v", got)
	}

	resp, err := svc.Merge(ctx, senior1, req(p.Conflict, model.ConfidenceWeighted, p.A, "higher score"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Offline == nil || resp.Offline.File != out || resp.Status != model.StatusResolved {
		t.Fatalf("response %+v, want resolved and recorded offline in %s", resp, out)
	}
	wantStrings(t, "superseded", resp.SideEffects.SupersededUnits, []string{p.B})
	got := readDecisions(t, out)
	if len(got) != 1 {
		t.Fatalf("%d messages in the decisions file, want 1", len(got))
	}
	env := got[0]
	if env.Protocol != "akashik" || env.Version != "0.1.0" || env.Operation != "MERGE" || env.AgentID != senior1 ||
		env.SessionID != nil || env.ID != resp.Offline.MessageID || env.Epoch <= f.Clock(t)-1 {
		t.Fatalf("envelope %+v", env)
	}
	var m model.MergeRequest
	if err := json.Unmarshal(env.Payload, &m); err != nil {
		t.Fatal(err)
	}
	if m.ConflictID != p.Conflict || m.Strategy != model.ConfidenceWeighted || m.ExpectedVersion != 1 ||
		m.Resolution.WinnerID == nil || *m.Resolution.WinnerID != p.A || m.Resolution.Rationale != "higher score" {
		t.Fatalf("payload %s", env.Payload)
	}
	if d := before.Diff(rt.Snap(t, cp)); d != "" {
		t.Fatalf("the read-only copy changed:\n%s", d)
	}
}

func TestOfflineVoteIsAMergeWithStrategyVoteAndTheChoiceAsWinner(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, p.A)
	vote(t, f, lead2, p.Conflict, p.A)
	svc, _, out := offlineCopy(t, f)

	_, err := svc.Vote(context.Background(), standard, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "me too"})
	rt.WantError(t, err, model.CodeNotPermitted, "VOTE", false)
	resp, err := svc.Vote(context.Background(), lead3, model.VoteRequest{ConflictID: p.Conflict, Choice: "B", Rationale: "B holds"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Offline == nil || resp.Status != model.StatusResolved || !resp.Closed || resp.Tally.ForA != 2 || resp.Tally.ForB != 1 {
		t.Fatalf("response %+v: the third ballot should close the vote for A", resp)
	}
	env := readDecisions(t, out)[0]
	var m model.MergeRequest
	json.Unmarshal(env.Payload, &m)
	if b, ok := m.Ballot(); !ok || b.Choice != p.B || m.Strategy != model.Vote || m.ExpectedVersion != 2 {
		t.Fatalf("payload %s, want a ballot for %s at version 2", env.Payload, p.B)
	}
}

func TestApplyDecisionAppliesOnceAndRefusesAConflictThatMoved(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p1 := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	p2 := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.3}, rt.Side{Score: 0.8})
	pv := openVote(t, f)
	svc, _, out := offlineCopy(t, f)
	ctx := context.Background()
	for _, r := range []model.MergeRequest{
		req(p1.Conflict, model.ConfidenceWeighted, p1.A, "the lab run is better"),
		req(p2.Conflict, model.HumanEscalation, "", "needs a person"),
	} {
		if _, err := svc.Merge(ctx, senior1, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Vote(ctx, lead1, model.VoteRequest{ConflictID: pv.Conflict, Choice: "A", Rationale: "A holds"}); err != nil {
		t.Fatal(err)
	}
	// Meanwhile the live field moves on: p2 is dismissed by someone else.
	merge(t, f, senior2, req(p2.Conflict, model.Dismiss, "", "not a real conflict"))
	envs := readDecisions(t, out)
	if len(envs) != 3 {
		t.Fatalf("%d messages, want 3", len(envs))
	}
	clock := f.Clock(t)
	if envs[2].Epoch <= envs[1].Epoch || envs[1].Epoch <= envs[0].Epoch {
		t.Fatalf("offline epochs do not grow: %d, %d, %d", envs[0].Epoch, envs[1].Epoch, envs[2].Epoch)
	}

	res, err := f.Svc.ApplyDecision(ctx, envs[0])
	if err != nil || res.Merge == nil || res.Merge.Status != model.StatusResolved || res.AlreadyApplied {
		t.Fatalf("apply 1: %+v, %v", res, err)
	}
	if c := f.Clock(t); c < max(clock, envs[0].Epoch)+1 {
		t.Fatalf("the clock is at %d: it did not witness epoch %d", c, envs[0].Epoch)
	}
	wantUnitStatus(t, f, p1.B, model.UnitSuperseded)
	_, err = f.Svc.ApplyDecision(ctx, envs[1])
	rt.WantError(t, err, model.CodeInvalidTransition, "MERGE", true)
	res, err = f.Svc.ApplyDecision(ctx, envs[2])
	if err != nil || res.Vote == nil || res.Vote.Tally.ForA != 1 {
		t.Fatalf("apply 3: %+v, %v", res, err)
	}

	before := rt.Snap(t, f.Path)
	for i, env := range envs {
		res, err := f.Svc.ApplyDecision(ctx, env)
		switch {
		case i == 1:
			rt.WantError(t, err, model.CodeInvalidTransition, "MERGE", true)
		case err != nil || !res.AlreadyApplied:
			t.Fatalf("second apply of %d: %+v, %v; want already applied", i, res, err)
		}
	}
	if d := before.Diff(rt.Snap(t, f.Path)); d != "" {
		t.Fatalf("applying again changed the field:\n%s", d)
	}
}
