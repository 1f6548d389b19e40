package fieldgen_test

import (
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/sqlite"
)

// small is a field big enough to hold every fate, small enough for go test.
var small = fieldgen.Options{Units: 2000, Conflicts: 400, Open: 60, Seed: 7, Batch: 3000}

func build(t *testing.T, opt fieldgen.Options) (string, fieldgen.Counts) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.db")
	c, err := fieldgen.Build(context.Background(), path, opt)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return path, c
}

func open(t *testing.T, path string) (*sqlite.Store, *review.Service) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, review.New(st)
}

func TestBuildWritesTheCountsAskedFor(t *testing.T) {
	path, c := build(t, small)
	if c.Units != small.Units || c.Conflicts != small.Conflicts {
		t.Fatalf("built %d units and %d conflicts, want %d and %d", c.Units, c.Conflicts, small.Units, small.Conflicts)
	}
	st, svc := open(t, path)
	ctx := context.Background()
	counts, err := svc.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	open := counts[model.StatusEscalated] + counts[model.StatusPendingVote]
	if open != small.Open {
		t.Errorf("%d conflicts wait for people, want %d (%v)", open, small.Open, counts)
	}
	if d := counts[model.StatusEscalated] - counts[model.StatusPendingVote]; d < 0 || d > 1 {
		t.Errorf("open conflicts split %d escalated / %d pending_vote, want halves", counts[model.StatusEscalated], counts[model.StatusPendingVote])
	}
	for _, s := range model.ConflictStatuses {
		if counts[s] == 0 {
			t.Errorf("no conflict is %s (%v)", s, counts)
		}
		if counts[s] != c.Statuses[s] {
			t.Errorf("the field has %d %s, the build reported %d", counts[s], s, c.Statuses[s])
		}
	}
	err = st.Read(ctx, func(tx store.Tx) error {
		n, err := tx.UnitCount()
		if err != nil {
			return err
		}
		if n != int64(small.Units) {
			t.Errorf("the field has %d units, want %d", n, small.Units)
		}
		epoch, err := tx.Epoch()
		if err != nil {
			return err
		}
		if epoch != c.Epoch {
			t.Errorf("the clock stands at %d, the build ended at %d", epoch, c.Epoch)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := st.IntegrityCheck(ctx)
	if err != nil || len(lines) != 1 || lines[0] != "ok" {
		t.Errorf("integrity check: %v %v", lines, err)
	}
}

// Every conflict tells a story the rules could have written: statuses
// match resolutions and unit statuses, votes are below quorum while open,
// and deterministic strategies picked the unit their rule picks.
func TestBuildFollowsTheRules(t *testing.T) {
	path, _ := build(t, small)
	_, svc := open(t, path)
	ctx := context.Background()
	rows, err := svc.List(ctx, model.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	strategies := map[model.Strategy]int{}
	for _, r := range rows {
		d, err := svc.Detail(ctx, r.ID)
		if err != nil {
			t.Fatalf("detail %s: %v", r.ID, err)
		}
		c := d.Conflict
		a, b := d.A.Unit.Status, d.B.Unit.Status
		if len(d.Events) == 0 || d.Events[0].Operation != "DETECT" {
			t.Errorf("%s: the log does not start with DETECT: %v", c.ID, d.Events)
		}
		if len(d.Notifications) == 0 {
			t.Errorf("%s: nobody was notified", c.ID)
		}
		switch c.Status {
		case model.StatusResolved:
			res := c.Resolution
			strategies[res.Strategy]++
			if res.EpochResolved <= c.Epoch || res.ResolvedBy == "" || res.Rationale == "" {
				t.Errorf("%s: resolution %+v", c.ID, res)
			}
			switch {
			case res.Strategy == model.Synthesis:
				if a != model.UnitSuperseded || b != model.UnitSuperseded || res.SynthesisUnitID == nil {
					t.Errorf("%s: synthesis left units %s/%s, new unit %v", c.ID, a, b, res.SynthesisUnitID)
				}
			case res.Strategy == model.Dismiss:
				if a != model.UnitActive || b != model.UnitActive {
					t.Errorf("%s: dismiss left units %s/%s", c.ID, a, b)
				}
			default:
				loser, _ := c.Other(*res.WinnerID)
				statusOf := map[string]model.UnitStatus{c.UnitA: a, c.UnitB: b}
				if statusOf[*res.WinnerID] != model.UnitActive || statusOf[loser] != model.UnitSuperseded {
					t.Errorf("%s: winner %s is %s, loser %s is %s", c.ID, *res.WinnerID, statusOf[*res.WinnerID], loser, statusOf[loser])
				}
				if res.Strategy.Deterministic() {
					pick := model.RulePick(res.Strategy, d.A.Contender(), d.B.Contender())
					if pick.WinnerID != *res.WinnerID {
						t.Errorf("%s: %s picks %s, the field says %s", c.ID, res.Strategy, pick.WinnerID, *res.WinnerID)
					}
				}
				if res.Strategy == model.Vote && !d.Tally.Reached() {
					t.Errorf("%s: resolved by a vote below quorum: %+v", c.ID, d.Tally)
				}
			}
		default:
			if a != model.UnitContested || b != model.UnitContested {
				t.Errorf("%s is %s but its units are %s/%s", c.ID, c.Status, a, b)
			}
			if c.Status == model.StatusPendingVote && d.Tally.Reached() {
				t.Errorf("%s: a vote at quorum is still open: %+v", c.ID, d.Tally)
			}
		}
	}
	for _, s := range []model.Strategy{model.LastWriteWins, model.ConfidenceWeighted, model.Dismiss,
		model.Synthesis, model.Authority, model.Vote} {
		if strategies[s] == 0 {
			t.Errorf("no conflict was resolved with %s (%v)", s, strategies)
		}
	}
}

func TestMergeAndVoteWorkOnAGeneratedField(t *testing.T) {
	path, _ := build(t, small)
	_, svc := open(t, path)
	ctx := context.Background()
	esc, err := svc.List(ctx, model.ListQuery{Statuses: []model.ConflictStatus{model.StatusEscalated}, Limit: 1})
	if err != nil || len(esc) != 1 {
		t.Fatalf("no escalated conflict: %v", err)
	}
	c := esc[0].Conflict
	resp, err := svc.Merge(ctx, fieldgen.Operator, model.MergeRequest{ConflictID: c.ID, Strategy: model.Synthesis,
		ExpectedVersion: c.Version, Resolution: model.MergeResolution{Synthesis: model.Ptr("Both, in part."), Rationale: "a test"}})
	if err != nil || resp.Status != model.StatusResolved {
		t.Fatalf("the operator's synthesis of %s: %v %+v", c.ID, err, resp)
	}
	if want := "mem-2001"; resp.SideEffects.NewUnitID == nil || *resp.SideEffects.NewUnitID != want {
		t.Errorf("the synthesis unit is %v, want the next id %s", resp.SideEffects.NewUnitID, want)
	}

	votes, err := svc.List(ctx, model.ListQuery{Statuses: []model.ConflictStatus{model.StatusPendingVote}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range votes {
		d, err := svc.Detail(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		var voter string
		for _, l := range fieldgen.Leads {
			cast := false
			for _, b := range d.Ballots {
				cast = cast || b.VoterID == l
			}
			if !cast {
				voter = l
				break
			}
		}
		vr, err := svc.Vote(ctx, voter, model.VoteRequest{ConflictID: v.ID, Choice: "A", Rationale: "a test"})
		if err != nil {
			t.Fatalf("%s voting on %s: %v", voter, v.ID, err)
		}
		if vr.Tally.Total() != len(d.Ballots)+1 {
			t.Errorf("%s: %d ballots after voting, want %d", v.ID, vr.Tally.Total(), len(d.Ballots)+1)
		}
		if len(d.Ballots) == 2 {
			if !vr.Closed {
				t.Errorf("%s: the third ballot did not close the vote", v.ID)
			}
			return
		}
	}
	t.Error("no vote had two ballots already")
}

func TestBuildIsDeterministic(t *testing.T) {
	opt := fieldgen.Options{Units: 600, Conflicts: 100, Open: 20, Seed: 42}
	p1, _ := build(t, opt)
	p2, _ := build(t, opt)
	if dump(t, p1) != dump(t, p2) {
		t.Error("two builds with the same seed differ")
	}
	opt.Seed = 43
	p3, _ := build(t, opt)
	if dump(t, p1) == dump(t, p3) {
		t.Error("builds with different seeds are the same")
	}
}

// dump is a digest of what the field says: every conflict's detail.
func dump(t *testing.T, path string) [32]byte {
	_, svc := open(t, path)
	ctx := context.Background()
	rows, err := svc.List(ctx, model.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, r := range rows {
		d, err := svc.Detail(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(h, d.A.Unit.Content+d.B.Unit.Content+string(d.Conflict.Status)+d.Conflict.Description)
		for _, e := range d.Events {
			h.Write(e.Payload)
		}
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func TestBuildRefusesAnExistingFileAndBadOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "taken.db")
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fieldgen.Build(context.Background(), path, small); err == nil {
		t.Error("built over an existing file")
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Error("the existing file was changed")
	}
	for _, o := range []fieldgen.Options{
		{Units: 100, Conflicts: 10, Open: 11},
		{Units: 100, Conflicts: 60, Open: 1},
		{Units: 0},
	} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v passed the check", o)
		}
	}
}

// A build that fails on PostgreSQL (the server refuses its first
// conflict) drops the schema it made.
func TestBuildThatFailsOnPostgreSQLLeavesNoSchema(t *testing.T) {
	schema, name := pgtest.Schema(t)
	pgtest.RefuseInserts(t, schema, "conflicts")
	_, err := fieldgen.Build(context.Background(), name, fieldgen.Options{Units: 200, Conflicts: 20, Open: 5, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "refused by a test") {
		t.Fatalf("the build: %v, want the server's refusal", err)
	}
	if exists, objects := pgtest.Left(t, schema); exists || objects != 0 {
		t.Errorf("after the build, schema exists %v with %d objects", exists, objects)
	}
}
