package reliability

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// dueSet is what a field holds for sweepers to do: conflicts whose
// fallback (or vote deadline) is due, and conflicts whose reminder is.
type dueSet struct {
	fallbacks map[string]bool
	reminders map[string]bool
}

// fallbacks the setup gives escalations, in turn: each kind, a rule that
// ties (confidence_weighted on equal scores: it stays escalated), and
// none (overdue).
var fallbacks = []model.Fallback{model.FallbackDismiss, model.Fallback(model.LastWriteWins),
	model.Fallback(model.ConfidenceWeighted), model.FallbackRework, "escalate:" + rt.Operator, ""}

// makeDue adds n conflicts to the field of f that are due now: escalated
// or put to a vote two hours ago with a deadline of one hour, with every
// kind of fallback, and every fifth one with a reminder due instead
// (routed nine hours ago for ten). What it writes counts as told.
func makeDue(t *testing.T, f *rt.Field, n int, told *tally, set *dueSet) {
	t.Helper()
	ctx := context.Background()
	ago := func(d time.Duration) *review.Service {
		return review.New(f.Store).WithClock(func() time.Time { return time.Now().Add(-d) })
	}
	for i := range n {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{By: rt.Scout})
		told.units[p.A], told.units[p.B], told.conflicts[p.Conflict] = true, true, true
		req := model.MergeRequest{ConflictID: p.Conflict, Strategy: model.HumanEscalation,
			Resolution: model.MergeResolution{Rationale: "waiting for a person"},
			Routing:    &model.Routing{Deadline: "1h", Fallback: fallbacks[i%len(fallbacks)]}}
		svc := ago(2 * time.Hour)
		switch {
		case i%5 == 4:
			req.Routing = &model.Routing{To: rt.Operator, Deadline: "10h", Fallback: model.FallbackDismiss}
			svc = ago(9 * time.Hour)
			set.reminders[p.Conflict] = true
		case i%7 == 3:
			req.Strategy, req.Routing.Fallback = model.Vote, model.FallbackDismiss
			set.fallbacks[p.Conflict] = true
		case req.Routing.Fallback == "":
			set.reminders[p.Conflict] = true // overdue: told once
		default:
			set.fallbacks[p.Conflict] = true
		}
		if _, err := svc.Merge(ctx, rt.Senior1, req); err != nil {
			t.Fatalf("route %s: %v", p.Conflict, err)
		}
		told.merges[string(req.Strategy)]++
		told.mergedIDs[p.Conflict]++
		if req.Strategy == model.Vote && i%2 == 0 { // a majority of one ballot
			if _, err := f.Svc.Vote(ctx, rt.Lead1, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "A holds"}); err != nil {
				t.Fatal(err)
			}
			told.votes++
		}
	}
}

// wantEachOnce checks that every due fallback executed exactly once and
// every due reminder was sent exactly once, by the field's log.
func wantEachOnce(t *testing.T, facts fieldFacts, set *dueSet) {
	t.Helper()
	for id := range set.fallbacks {
		if n := facts.timeouts[id]; n != 1 {
			t.Errorf("%s: its fallback executed %d times, want once", id, n)
		}
	}
	for id := range set.reminders {
		if n := facts.reminders[id]; n != 1 {
			t.Errorf("%s: reminded %d times, want once", id, n)
		}
		if facts.timeouts[id] != 0 {
			t.Errorf("%s: a fallback executed before its deadline", id)
		}
	}
}

// TestRacingSweepersExecuteEachFallbackOnce starts four processes that
// sweep the same field at once, over and over, while its deadlines are
// due: each fallback must execute exactly once and each reminder be sent
// once — by the field's log and by what the processes said — and the
// field must pass every invariant.
func TestRacingSweepersExecuteEachFallbackOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	f := rt.New(t, rt.Policy())
	told := newTally()
	set := &dueSet{fallbacks: map[string]bool{}, reminders: map[string]bool{}}
	makeDue(t, f, 120, told, set)
	path := f.Path
	f.Store.Close()

	until := time.Now().Add(3 * time.Second)
	var procs []*process
	for i := range 4 {
		procs = append(procs, startWorker(t, "sweeper", path, until, 100+i, 0))
	}
	for _, p := range procs {
		select {
		case err := <-p.exited:
			if err != nil {
				t.Errorf("sweeper: %v\n%s", err, tail(p.output()))
			}
		case <-time.After(time.Minute):
			p.cmd.Process.Kill()
			t.Fatal("a sweeper did not stop")
		}
		told.add(p.output(), false)
	}
	facts := checkField(t, path, told)
	wantEachOnce(t, facts, set)
	for id := range set.fallbacks {
		if n := told.swept[id+" "+model.SweepFallback]; n != 1 {
			t.Errorf("%s: the sweepers said %d times that they executed its fallback", id, n)
		}
	}
	for id := range set.reminders {
		if n := told.swept[id+" "+model.SweepReminder] + told.swept[id+" "+model.SweepOverdue]; n != 1 {
			t.Errorf("%s: the sweepers said %d times that they reminded", id, n)
		}
	}
	t.Logf("%d fallbacks and %d reminders due; %s", len(set.fallbacks), len(set.reminders), facts)
}

// TestKilledSweepersLeaveNothingHalfDone kills sweeping processes with
// SIGKILL mid-sweep, round after round, each round with new deadlines
// due. Whatever a killed sweeper did is whole: the field passes every
// invariant, no fallback executed twice, and one last sweep finishes what
// was left, so that each executed exactly once.
//
// The kills wait for the sweepers to have executed a few fallbacks (one
// to eight, at random), watching the field, not the clock: on a busy
// machine a process may not have opened the field by the time a timer
// fires.
func TestKilledSweepersLeaveNothingHalfDone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	rounds := 12
	if soak(t) > 0 {
		rounds = 60
	}
	f := rt.New(t, rt.Policy())
	told := newTally()
	set := &dueSet{fallbacks: map[string]bool{}, reminders: map[string]bool{}}
	rng := rand.New(rand.NewPCG(3, 5))
	kills, partial := 0, 0 // partial: rounds that left some of what was due undone
	for round := range rounds {
		makeDue(t, f, 60, told, set)
		target := executedFallbacks(t, f, set) + 1 + rng.IntN(8)
		var procs []*process
		for i := range 2 {
			procs = append(procs, startWorker(t, "sweeper", f.Path, time.Now().Add(time.Minute), 1000+2*round+i, 0))
		}
		waitExecuted(t, f, set, target, procs)
		for _, p := range procs {
			p.cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, p := range procs {
			if err := <-p.exited; err != nil {
				kills++
			}
			told.add(p.output(), true)
		}
		// Open the field again after the kills, as the next person would.
		f.Store.Close()
		st, err := field.Open(context.Background(), f.Path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f.Store, f.Svc = st, review.New(st)
		if n := executedFallbacks(t, f, set); n > 0 && n < len(set.fallbacks) {
			partial++
		}
	}
	// Nothing was done twice, even before the last sweep.
	before := checkField(t, f.Path, told)
	for id, n := range before.timeouts {
		if n > 1 {
			t.Errorf("%s: its fallback executed %d times", id, n)
		}
	}
	if _, err := f.Svc.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Store.Close()
	facts := checkField(t, f.Path, told)
	wantEachOnce(t, facts, set)
	done := 0
	for id := range set.fallbacks {
		done += before.timeouts[id]
	}
	t.Logf("%d kills, %d rounds left some of what was due undone; %d of %d fallbacks executed by killed sweepers; %s",
		kills, partial, done, len(set.fallbacks), facts)
	if kills == 0 || done == 0 || partial == 0 {
		t.Errorf("the kills proved nothing: %d kills, %d partial rounds, %d of %d fallbacks done before the last sweep",
			kills, partial, done, len(set.fallbacks))
	}
}

// executedFallbacks counts the due fallbacks of set the field shows
// executed.
func executedFallbacks(t *testing.T, f *rt.Field, set *dueSet) int {
	t.Helper()
	executed := 0
	f.Read(t, func(tx store.Tx) error {
		for id := range set.fallbacks {
			c, err := tx.Conflict(id)
			if err != nil {
				return err
			}
			if c.Version > 2 || (c.Version == 2 && c.Status != model.StatusEscalated && c.Status != model.StatusPendingVote) {
				executed++
			}
		}
		return nil
	})
	return executed
}

// waitExecuted returns once the field shows target of set's fallbacks
// executed (or all of them), waking at each change another process
// commits. The minute is a net for sweepers that never start, not a
// measure.
func waitExecuted(t *testing.T, f *rt.Field, set *dueSet, target int, procs []*process) {
	t.Helper()
	target = min(target, len(set.fallbacks))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := f.Store.Changed(ctx)
	for err == nil {
		n := executedFallbacks(t, f, set)
		if n >= target {
			return
		}
		v, err = f.Svc.WaitChange(ctx, v, time.Millisecond)
	}
	for _, p := range procs {
		p.cmd.Process.Kill()
		<-p.exited
		t.Logf("sweeper said:\n%s", tail(p.output()))
	}
	t.Fatalf("waiting for %d fallbacks executed: %v", target, err)
}
