package review_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// forked is a fork of a test field: a SQLite file, with its rules.
type forked struct {
	Path  string
	Store store.Field
	Svc   *review.Service
}

// forkOf forks f into a new file.
func forkOf(t *testing.T, f *rt.Field) (*forked, review.ForkResult) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fork-b.db")
	st, err := field.Create(ctx, path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	res, err := f.Svc.Fork(ctx, operator, st)
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	return &forked{Path: path, Store: st, Svc: review.New(st)}, res
}

// rec records a finding by by with relations rels and returns its id.
func rec(t *testing.T, svc *review.Service, by, content string, rels ...model.Relation) string {
	t.Helper()
	score := 0.7
	res, err := svc.Record(context.Background(), by, model.RecordRequest{Type: model.TypeFinding, Content: content,
		Intent: model.Intent{Purpose: "test"}, Confidence: model.Confidence{Score: &score, Reasoning: "as the test needs"},
		Relations: rels})
	if err != nil {
		t.Fatalf("record %q: %v", content, err)
	}
	return res.UnitID
}

func join(t *testing.T, f *rt.Field, k *forked, opt review.JoinOptions) model.JoinReport {
	t.Helper()
	rep, err := f.Svc.Join(context.Background(), operator, k.Store, opt)
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	return rep
}

func provenance(t *testing.T, f *rt.Field, kind model.ProvenanceKind, id string) model.Provenance {
	t.Helper()
	var p model.Provenance
	f.Read(t, func(tx store.Tx) (err error) { p, err = tx.Provenance(kind, id); return err })
	return p
}

func TestForkRecordsTheForkInBothFields(t *testing.T) {
	f := rt.New(t, rt.Policy())
	rec(t, f.Svc, senior1, "p99 is 40 ms in the lab")
	before := f.Clock(t)
	k, res := forkOf(t, f)
	if res.BaseEpoch != before || res.FieldUID == "" || res.ForkUID == "" || res.FieldUID == res.ForkUID {
		t.Fatalf("fork %+v, want base epoch %d and two identities", res, before)
	}
	var mine, theirs []model.FieldLink
	f.Read(t, func(tx store.Tx) (err error) { mine, err = tx.FieldLinks(); return err })
	k.Store.Read(context.Background(), func(tx store.Tx) (err error) { theirs, err = tx.FieldLinks(); return err })
	wantMine := []model.FieldLink{{UID: res.ForkUID, Kind: model.LinkFork, Name: k.Path, BaseEpoch: before},
		{UID: res.FieldUID, Kind: model.LinkSelf}}
	wantTheirs := []model.FieldLink{{UID: res.FieldUID, Kind: model.LinkOrigin, Name: f.Store.Name(), BaseEpoch: before},
		{UID: res.ForkUID, Kind: model.LinkSelf, Name: k.Path}}
	if !slices.Equal(mine, wantMine) || !slices.Equal(theirs, wantTheirs) {
		t.Fatalf("links\n field %+v\n fork  %+v\nwant\n field %+v\n fork  %+v", mine, theirs, wantMine, wantTheirs)
	}
	for _, st := range []store.Field{f.Store, k.Store} {
		var forks []model.ForkLog
		st.Read(context.Background(), func(tx store.Tx) error {
			return tx.EventEach(func(e model.Event) error {
				if e.Operation == model.OpFork {
					p, err := model.DecodePayload[model.ForkLog](e)
					forks = append(forks, p)
					return err
				}
				return nil
			})
		})
		if len(forks) != 1 || forks[0].BaseEpoch != before || forks[0].ForkUID != res.ForkUID {
			t.Fatalf("%s logs FORK %+v", st.Name(), forks)
		}
	}
}

func TestJoinAddsTheForksUnitsUnderFreeIdsWithRelationsRemapped(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base := rec(t, f.Svc, senior1, "the cache holds 2 GB")
	k, _ := forkOf(t, f)
	// Both sides record after the fork: the field takes the ids the fork
	// gave its first units.
	f1 := rec(t, k.Svc, senior2, "eviction is LRU", model.Relation{Type: model.RelElaborates, TargetID: base})
	f2 := rec(t, k.Svc, senior2, "LRU was measured at 91% hits", model.Relation{Type: model.RelSupports, TargetID: f1})
	mine := rec(t, f.Svc, senior1, "the cache is sharded")
	if mine != f1 {
		t.Fatalf("the field's unit is %s, the fork's first %s: the test wants them to collide", mine, f1)
	}
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if rep.UnitsAdded != 2 || rep.UnitsRenamed != 1 || rep.Divergence.Fork.Added != 2 {
		t.Fatalf("report %+v, want 2 units added, 1 renamed", rep)
	}
	p1 := provenanceByFork(t, f, rep.ForkUID, f1)
	p2 := provenanceByFork(t, f, rep.ForkUID, f2)
	if p1.ID == f1 || p2.ID != f2 {
		t.Fatalf("the fork's %s is %s here, %s is %s: want the first renamed, the second kept", f1, p1.ID, f2, p2.ID)
	}
	u1, u2 := f.Unit(t, p1.ID), f.Unit(t, p2.ID)
	if u1.Content != "eviction is LRU" || u1.Source.AgentID != senior2 || u1.Relations[0].TargetID != base {
		t.Fatalf("the fork's first unit here: %+v", u1)
	}
	if u2.Relations[0].TargetID != p1.ID {
		t.Fatalf("the fork's second unit supports %s here, want %s (remapped)", u2.Relations[0].TargetID, p1.ID)
	}
	if got := provenance(t, f, model.ProvenanceUnit, p1.ID); got.ForkID != f1 || got.ForkName != k.Path {
		t.Fatalf("provenance of %s: %+v", p1.ID, got)
	}
	// Units recorded here afterwards take ids nobody holds.
	next := rec(t, f.Svc, senior1, "after the join")
	if next == p1.ID || next == p2.ID || next == mine {
		t.Fatalf("a unit recorded after the join got a taken id, %s", next)
	}
}

func provenanceByFork(t *testing.T, f *rt.Field, uid, forkID string) model.Provenance {
	t.Helper()
	var p model.Provenance
	f.Read(t, func(tx store.Tx) (err error) {
		p, err = tx.ProvenanceByFork(uid, model.ProvenanceUnit, forkID)
		return err
	})
	return p
}

func TestJoinOpensAnEscalatedConflictBetweenTwoRevisionsWithTheirAncestor(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base := rec(t, f.Svc, senior1, "p99 is 40 ms in the lab")
	other := rec(t, f.Svc, senior1, "the lab has 4 nodes")
	k, _ := forkOf(t, f)
	sup := func(id string) model.Relation { return model.Relation{Type: model.RelSupersedes, TargetID: id} }
	mine := rec(t, f.Svc, senior1, "p99 is 55 ms in production", sup(base))
	theirs := rec(t, k.Svc, senior2, "p99 is 42 ms in the lab, corrected", sup(base))
	rec(t, f.Svc, senior1, "the lab has 5 nodes", sup(other))
	rec(t, k.Svc, senior2, "the lab has 5 nodes", sup(other))
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if len(rep.RevisionConflicts) != 1 || rep.RevisedAlike != 1 {
		t.Fatalf("report %+v: want 1 revision conflict and 1 revision alike", rep)
	}
	there := provenanceByFork(t, f, rep.ForkUID, theirs).ID
	var found bool
	for _, id := range rep.RevisionConflicts {
		d := f.Detail(t, id)
		if d.Conflict.Status != model.StatusEscalated || d.Conflict.Escalation.By != operator {
			t.Fatalf("%s is %s, escalated by %+v; want escalated by the joining operator", id, d.Conflict.Status, d.Conflict.Escalation)
		}
		if d.Conflict.UnitA == mine && d.Conflict.UnitB == there {
			found = true
			anc, err := f.Svc.Ancestry(context.Background(), id)
			if err != nil || anc == nil || anc.UnitID != base {
				t.Fatalf("ancestor of %s: %+v (%v), want %s", id, anc, err, base)
			}
			if !hasJoinEvent(f, t, id, model.JoinRevision) {
				t.Fatalf("%s's history has no JOIN event", id)
			}
			if !notified(t, f, operator, id, model.EventConflictEscalated) {
				t.Fatalf("the operator was not told %s is escalated", id)
			}
		}
	}
	if !found {
		t.Fatalf("no conflict between %s and %s among %v", mine, there, rep.RevisionConflicts)
	}
}

func hasJoinEvent(f *rt.Field, t *testing.T, conflict, kind string) bool {
	d, err := f.Svc.Detail(context.Background(), conflict)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Events {
		if e.Operation == model.OpJoin {
			p, err := model.DecodePayload[model.JoinLog](e)
			if err == nil && p.Kind == kind {
				return true
			}
		}
	}
	return false
}

func notified(t *testing.T, f *rt.Field, agent, conflict, event string) bool {
	ns, err := f.Svc.Inbox(context.Background(), agent, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns {
		if n.ConflictID != nil && *n.ConflictID == conflict && n.Event == event {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestTheFieldForkedFromJoinsIntoItsFork(t *testing.T) {
	f := rt.New(t, rt.Policy())
	k, _ := forkOf(t, f)
	rec(t, f.Svc, senior1, "learned at home")
	rep, err := k.Svc.Join(context.Background(), operator, f.Store, review.JoinOptions{BaseEpoch: -1})
	if err != nil || rep.UnitsAdded != 1 {
		t.Fatalf("joining the origin into its fork: %+v (%v)", rep, err)
	}
	if _, err := f.Svc.Join(context.Background(), operator, f.Store, review.JoinOptions{BaseEpoch: -1}); err == nil {
		t.Fatal("a field was joined into itself")
	}
}

func TestARevisionConflictWeighsEachSidesLatestRevision(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base := rec(t, f.Svc, senior1, "the build takes 9 minutes")
	k, _ := forkOf(t, f)
	sup := func(id string) model.Relation { return model.Relation{Type: model.RelSupersedes, TargetID: id} }
	first := rec(t, k.Svc, senior2, "the build takes 7 minutes", sup(base))
	latest := rec(t, k.Svc, senior2, "the build takes 6 minutes, cached", sup(first))
	mine := rec(t, f.Svc, senior1, "the build takes 12 minutes")
	mine2 := rec(t, f.Svc, senior1, "the build takes 11 minutes", sup(base))
	mine3 := rec(t, f.Svc, senior1, "the build takes 10 minutes", sup(mine2))
	_ = mine
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if len(rep.RevisionConflicts) != 1 {
		t.Fatalf("report %+v: want one revision conflict", rep)
	}
	d := f.Detail(t, rep.RevisionConflicts[0])
	there := provenanceByFork(t, f, rep.ForkUID, latest).ID
	if d.Conflict.UnitA != mine3 || d.Conflict.UnitB != there {
		t.Fatalf("the conflict is between %s and %s, want the latest revisions %s and %s", d.Conflict.UnitA, d.Conflict.UnitB, mine3, there)
	}
	if d.Ancestor == nil || d.Ancestor.UnitID != base {
		t.Fatalf("ancestor %+v, want %s", d.Ancestor, base)
	}
}
