package review_test

import (
	"context"
	"slices"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

func TestJoinBringsTheForksConflictsWithTheirBallotsAndHistory(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base, k, theirs, forkConflict := contradictedInFork(t, f)
	if _, err := k.Svc.Merge(context.Background(), operator, req(forkConflict, model.Vote, "", "let the leads say")); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Svc.Vote(context.Background(), lead1, model.VoteRequest{ConflictID: forkConflict, Choice: "B", Rationale: "measured"}); err != nil {
		t.Fatal(err)
	}
	// The field opens a conflict of its own, taking the fork's id.
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if p.Conflict != forkConflict {
		t.Fatalf("the field's conflict is %s, the fork's %s: the test wants them to collide", p.Conflict, forkConflict)
	}
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if rep.ConflictsBrought != 1 || rep.BallotsBrought != 1 || rep.EventsBrought < 3 {
		t.Fatalf("report %+v: want 1 conflict with 1 ballot and its events brought", rep)
	}
	var here string
	f.Read(t, func(tx store.Tx) error {
		pr, err := tx.ProvenanceByFork(rep.ForkUID, model.ProvenanceConflict, forkConflict)
		here = pr.ID
		return err
	})
	d := f.Detail(t, here)
	unitHere := provenanceByFork(t, f, rep.ForkUID, theirs).ID
	if here == forkConflict || d.Conflict.Status != model.StatusPendingVote || d.Conflict.UnitA != base || d.Conflict.UnitB != unitHere {
		t.Fatalf("brought as %s: %+v", here, d.Conflict)
	}
	if len(d.Ballots) != 1 || d.Ballots[0].VoterID != lead1 || d.Ballots[0].Choice != unitHere {
		t.Fatalf("ballots %+v, want lead-1's for %s", d.Ballots, unitHere)
	}
	if f.Status(t, base) != model.UnitContested {
		t.Fatalf("%s is %s, want contested as in the fork", base, f.Status(t, base))
	}
	ops := []string{}
	for _, e := range d.Events {
		ops = append(ops, e.Operation)
	}
	if !slices.Equal(ops, []string{"DETECT", "MERGE", "VOTE", "JOIN"}) {
		t.Fatalf("history %v", ops)
	}
	// The brought events name the units and the conflict by their ids
	// here: the fork's ids are others' here.
	for _, e := range d.Events[:3] {
		if theirs != unitHere && contains(string(e.Payload), `"`+theirs+`"`) || contains(string(e.Payload), `"`+forkConflict+`"`) {
			t.Fatalf("the brought %s names the fork's ids (%s, %s): %s", e.Operation, theirs, forkConflict, e.Payload)
		}
	}
	if vote := d.Events[2]; !contains(string(vote.Payload), `"`+unitHere+`"`) {
		t.Fatalf("the brought VOTE does not name %s: %s", unitHere, vote.Payload)
	}
	// The fork's notifications are not sent again; the join tells the
	// authors once.
	var told []model.Notification
	f.Read(t, func(tx store.Tx) (err error) { told, err = tx.NotificationsOfConflict(here); return err })
	if len(told) != 2 || told[0].Event != model.EventConflictDetected || !contains(told[0].Summary, "joined from") ||
		!notified(t, f, senior2, here, model.EventConflictDetected) || !notified(t, f, senior1, here, model.EventConflictDetected) {
		t.Fatalf("notices of %s: %+v; want the join's one to each author, none of the fork's", here, told)
	}
}

// contradictedInFork records a unit base in f, forks f, and records in the
// fork a unit theirs that contradicts it: the fork's conflict between
// them is forkConflict.
func contradictedInFork(t *testing.T, f *rt.Field) (base string, k *forked, theirs, forkConflict string) {
	t.Helper()
	base = rec(t, f.Svc, senior1, "the queue drains in 3 s")
	k, _ = forkOf(t, f)
	theirs = rec(t, k.Svc, senior2, "the queue drains in 9 s", model.Relation{Type: model.RelContradicts, TargetID: base})
	k.Store.Read(context.Background(), func(tx store.Tx) error {
		cs, err := tx.ConflictsOfUnit(theirs)
		if len(cs) == 1 {
			forkConflict = cs[0].ID
		}
		return err
	})
	return base, k, theirs, forkConflict
}

// decided is three conflicts from before the fork, decided after it in
// the fork only, the same way on both sides, and differently.
func TestJoinComparesTheDecisionsOfBothSides(t *testing.T) {
	f := rt.New(t, rt.Policy())
	only := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	same := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	apart := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	k, _ := forkOf(t, f)
	forkMerge := func(c, winner, why string) {
		if _, err := k.Svc.Merge(context.Background(), lead1, req(c, model.Authority, winner, why)); err != nil {
			t.Fatal(err)
		}
	}
	forkMerge(only.Conflict, only.B, "the fork measured it")
	forkMerge(same.Conflict, same.A, "A holds")
	forkMerge(apart.Conflict, apart.B, "B holds, says the fork")
	merge(t, f, lead2, req(same.Conflict, model.Authority, same.A, "A holds here too"))
	merge(t, f, lead2, req(apart.Conflict, model.Authority, apart.A, "A holds, says the field"))

	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if !slices.Equal(rep.DecisionsTaken, []string{only.Conflict}) || rep.DecisionsSame != 1 ||
		!slices.Equal(rep.DecisionsDiffer, []string{apart.Conflict}) || rep.Divergence.Fork.Decided != 3 {
		t.Fatalf("report %+v", rep)
	}
	c := f.Detail(t, only.Conflict).Conflict
	if c.Status != model.StatusResolved || c.Resolution.ResolvedBy != lead1 || c.Resolution.Rationale != "the fork measured it" ||
		*c.Resolution.WinnerID != only.B || f.Status(t, only.A) != model.UnitSuperseded || f.Status(t, only.B) != model.UnitActive {
		t.Fatalf("%s taken from the fork: %+v; units %s, %s", c.ID, c.Resolution, f.Status(t, only.A), f.Status(t, only.B))
	}
	if !hasJoinEvent(f, t, only.Conflict, model.JoinDecided) {
		t.Fatal("no JOIN event on the decision taken")
	}
	if c := f.Detail(t, same.Conflict).Conflict; c.Resolution.ResolvedBy != lead2 || c.Version != 2 {
		t.Fatalf("%s decided alike changed: %+v (version %d)", c.ID, c.Resolution, c.Version)
	}
	d := f.Detail(t, apart.Conflict)
	if d.Conflict.Status != model.StatusEscalated || d.Conflict.Resolution != nil ||
		f.Status(t, apart.A) != model.UnitContested || f.Status(t, apart.B) != model.UnitContested {
		t.Fatalf("%s decided apart: %+v; units %s, %s", apart.Conflict, d.Conflict, f.Status(t, apart.A), f.Status(t, apart.B))
	}
	var reopen model.ReopenLog
	for _, e := range d.Events {
		if e.Operation == model.OpReopen {
			reopen, _ = model.DecodePayload[model.ReopenLog](e)
		}
	}
	if !contains(reopen.Rationale, "A holds, says the field") || !contains(reopen.Rationale, "B holds, says the fork") ||
		!contains(reopen.Rationale, "lead-1") || !contains(reopen.Rationale, "lead-2") {
		t.Fatalf("the reopening's rationale %q lacks a side", reopen.Rationale)
	}
	// Reopened as arbiter reopen reopens: to the owner its route had, else
	// the policy's owner; this policy names none, so any human operator.
	if d.Conflict.Route == nil || d.Conflict.Route.Owner != "" || !notified(t, f, lead2, apart.Conflict, model.EventConflictReopened) {
		t.Fatalf("%s waits for %+v; want any human operator, and lead-2, who decided here, told", apart.Conflict, d.Conflict.Route)
	}
}

func TestJoinRegistersTheForksAgentsAndReportsThoseRegisteredDifferently(t *testing.T) {
	f := rt.New(t, rt.Policy())
	k, _ := forkOf(t, f)
	ctx := context.Background()
	for _, a := range []model.Agent{{ID: "night-shift", Role: "analyst", Authority: 4}, {ID: "twin", Role: "analyst", Authority: 4}} {
		if _, err := k.Svc.Register(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Svc.Register(ctx, model.Agent{ID: "twin", Role: "lead", Authority: 6}); err != nil {
		t.Fatal(err)
	}
	rec(t, k.Svc, "night-shift", "recorded at night")
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if !slices.Equal(rep.AgentsRegistered, []string{"night-shift"}) || !slices.Equal(rep.AgentsDiffer, []string{"twin"}) {
		t.Fatalf("agents registered %v, differing %v", rep.AgentsRegistered, rep.AgentsDiffer)
	}
	if a, err := f.Svc.Agent(ctx, "twin"); err != nil || a.Role != "lead" {
		t.Fatalf("twin here: %+v (%v), want left as the field has it", a, err)
	}
}

func TestJoiningAgainTakesOnlyWhatIsNewer(t *testing.T) {
	f := rt.New(t, rt.Policy())
	k, _ := forkOf(t, f)
	rec(t, k.Svc, senior2, "first")
	first := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	var before store.Summary
	f.Read(t, func(tx store.Tx) (err error) { before, err = store.Digest(tx); return err })
	again := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	var after store.Summary
	f.Read(t, func(tx store.Tx) (err error) { after, err = store.Digest(tx); return err })
	if first.UnitsAdded != 1 || !again.Nothing || again.UnitsAdded != 0 || before != after {
		t.Fatalf("first %+v\nagain %+v\nfield %v then %v", first, again, before, after)
	}
	rec(t, k.Svc, senior2, "second")
	later := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if later.UnitsAdded != 1 || later.Since != first.ForkEpoch {
		t.Fatalf("a later join %+v, want the one newer unit since epoch %d", later, first.ForkEpoch)
	}
}

func TestJoinRefusesAFieldThatIsNotItsForkUnlessGivenTheBaseEpoch(t *testing.T) {
	f := rt.New(t, rt.Policy())
	rec(t, f.Svc, senior1, "shared")
	other := rt.New(t, rt.Policy())
	stranger := &forked{Path: other.Path, Store: other.Store, Svc: other.Svc}
	rec(t, other.Svc, senior2, "a stranger's")
	_, err := f.Svc.Join(context.Background(), operator, stranger.Store, review.JoinOptions{BaseEpoch: -1})
	if pe, ok := model.AsError(err); !ok || pe.Code != model.CodeInvalidRequest || !contains(pe.Message, "is not a fork of this field") {
		t.Fatalf("joining a stranger: %v", err)
	}
	// A fork of the fork is no fork of the field either.
	k, _ := forkOf(t, f)
	kk, _ := forkOf(t, &rt.Field{Path: k.Path, Store: k.Store, Svc: k.Svc})
	if _, err := f.Svc.Join(context.Background(), operator, kk.Store, review.JoinOptions{BaseEpoch: -1}); err == nil {
		t.Fatal("a fork's fork was joined")
	}
	var clock int64
	other.Read(t, func(tx store.Tx) (err error) { clock, err = tx.Epoch(); return err })
	rep := join(t, f, stranger, review.JoinOptions{BaseEpoch: clock - 1})
	if rep.UnitsAdded != 1 {
		t.Fatalf("with --base-epoch: %+v", rep)
	}
	if _, err := f.Svc.Join(context.Background(), senior1, k.Store, review.JoinOptions{BaseEpoch: -1}); err == nil {
		t.Fatal("an agent who is not a human operator joined a fork")
	}
}

func TestJoinDryRunWritesNothing(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base := rec(t, f.Svc, senior1, "v1")
	k, _ := forkOf(t, f)
	rec(t, k.Svc, senior2, "v2 there", model.Relation{Type: model.RelSupersedes, TargetID: base})
	rec(t, f.Svc, senior1, "v2 here", model.Relation{Type: model.RelSupersedes, TargetID: base})
	var before, after store.Summary
	f.Read(t, func(tx store.Tx) (err error) { before, err = store.Digest(tx); return err })
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1, DryRun: true})
	f.Read(t, func(tx store.Tx) (err error) { after, err = store.Digest(tx); return err })
	if before != after {
		t.Fatalf("a dry run changed the field: %v then %v", before, after)
	}
	if !rep.DryRun || rep.UnitsAdded != 1 || len(rep.RevisionConflicts) != 1 ||
		rep.Divergence.Field != (model.SideWork{Added: 1, Revised: 1}) || rep.Divergence.Fork != (model.SideWork{Added: 1, Revised: 1}) {
		t.Fatalf("dry run %+v", rep)
	}
	if real := join(t, f, k, review.JoinOptions{BaseEpoch: -1}); real.UnitsAdded != 1 {
		t.Fatalf("the join after the dry run: %+v", real)
	}
}

func TestJoinCastsTheForksBallotsOnVotesOpenOnBothSides(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	merge(t, f, operator, req(p.Conflict, model.Vote, "", "the leads decide"))
	k, _ := forkOf(t, f)
	for _, voter := range []string{lead1, lead2} {
		if _, err := k.Svc.Vote(context.Background(), voter, model.VoteRequest{ConflictID: p.Conflict, Choice: "B",
			Rationale: voter + " in the fork"}); err != nil {
			t.Fatal(err)
		}
	}
	vote(t, f, lead2, p.Conflict, "A") // lead-2 voted here too: this ballot stays
	vote(t, f, lead3, p.Conflict, "B")
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	if rep.BallotsCast != 1 || rep.BallotsLeft != 1 || len(rep.DecisionsTaken) != 0 {
		t.Fatalf("report %+v: want lead-1's ballot cast, lead-2's left", rep)
	}
	// lead-1's ballot is the third here: the vote closes, by the rules.
	d := f.Detail(t, p.Conflict)
	if d.Conflict.Status != model.StatusResolved || *d.Conflict.Resolution.WinnerID != p.B || d.Conflict.Resolution.ResolvedBy != lead1 {
		t.Fatalf("%s after the join: %s %+v", p.Conflict, d.Conflict.Status, d.Conflict.Resolution)
	}
	var ballots []string
	for _, b := range d.Ballots {
		ballots = append(ballots, b.VoterID+" "+b.Choice)
	}
	slices.Sort(ballots)
	if want := []string{lead1 + " " + p.B, lead2 + " " + p.A, lead3 + " " + p.B}; !slices.Equal(ballots, want) {
		t.Fatalf("ballots %v, want %v", ballots, want)
	}
}

// TestJoinRemapsTheIdsOfABroughtPayloadNotItsText: the brought MERGE
// keeps its unit by the unit's id here, and its rationale as the person
// wrote it, even when that text is nothing but the fork's id of the unit.
func TestJoinRemapsTheIdsOfABroughtPayloadNotItsText(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base, k, theirs, forkConflict := contradictedInFork(t, f)
	if _, err := k.Svc.Merge(context.Background(), operator, req(forkConflict, model.Authority, theirs, theirs)); err != nil {
		t.Fatal(err)
	}
	// The field records a unit of its own, taking the fork's id.
	if mine := rec(t, f.Svc, senior1, "a unit of the field's own"); mine != theirs {
		t.Fatalf("the field's unit is %s, the fork's %s: the test wants them to collide", mine, theirs)
	}
	rep := join(t, f, k, review.JoinOptions{BaseEpoch: -1})
	unitHere := provenanceByFork(t, f, rep.ForkUID, theirs).ID
	var here string
	f.Read(t, func(tx store.Tx) error {
		pr, err := tx.ProvenanceByFork(rep.ForkUID, model.ProvenanceConflict, forkConflict)
		here = pr.ID
		return err
	})
	var logged model.MergeLog
	for _, e := range f.Detail(t, here).Events {
		if e.Operation == model.OpMerge {
			var err error
			if logged, err = model.DecodePayload[model.MergeLog](e); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := logged.Request
	if r.ConflictID != here || r.Resolution.WinnerID == nil || *r.Resolution.WinnerID != unitHere ||
		!slices.Equal(logged.SupersededUnits, []string{base}) {
		t.Fatalf("the brought MERGE keeps %v of %s, superseding %v; want %s of %s, superseding %s",
			r.Resolution.WinnerID, r.ConflictID, logged.SupersededUnits, unitHere, here, base)
	}
	if r.Resolution.Rationale != theirs {
		t.Fatalf("the brought MERGE's rationale is %q; want %q, as written", r.Resolution.Rationale, theirs)
	}
}
