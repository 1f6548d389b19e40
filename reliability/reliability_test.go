package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// TestLiveWritersDecidersAndVotersInSeparateProcesses runs, at once and
// as fast as they go, two processes recording units and opening
// conflicts, three deciding the oldest open conflicts with every strategy
// (the same ones, so they race), and two voting on those put to a vote.
// Afterwards the field must hold exactly what the processes were told,
// every decision must be whole (checkField), and no process may have met
// anything but the refusals racing brings: a decision someone else took
// first, or a rule that cannot pick. FIELD_BUSY — SQLite's "database is
// locked" — would be a failure.
func TestLiveWritersDecidersAndVotersInSeparateProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	run := 10 * time.Second
	if d := soak(t); d > 0 {
		run = d / 2
	}
	f := rt.New(t, rt.Policy())
	path := f.Path
	f.Store.Close() // the workers have the field to themselves

	until := time.Now().Add(run)
	var procs []*process
	for i, role := range []string{"writer", "writer", "decider", "decider", "decider", "voter", "voter"} {
		procs = append(procs, startWorker(t, role, path, until, i+1, 16<<10))
	}
	told := newTally()
	for _, p := range procs {
		select {
		case err := <-p.exited:
			if err != nil {
				t.Errorf("%s worker: %v\n%s", p.role, err, tail(p.output()))
			}
		case <-time.After(run + time.Minute):
			p.cmd.Process.Kill()
			t.Fatalf("%s worker did not stop", p.role)
		}
		told.add(p.output(), false)
	}
	facts := checkField(t, path, told)
	t.Logf("%s over %s", told, run)
	t.Logf("%s", facts)
	if told.merged() == 0 || told.votes == 0 || len(told.conflicts) == 0 {
		t.Errorf("the run did too little to prove anything: %s", told)
	}
}

// TestKilledDecidersLeaveWholeDecisions kills processes with SIGKILL at
// random moments while they record, decide (synthesis texts up to 256 KB
// keep some writes long) and vote, two at a time, over many rounds. Each
// decision must be all or nothing: the field passes its integrity check
// and every invariant of checkField, holds everything the processes were
// told, and at most the operations in flight when they died besides. It
// can still be written at once: no lock outlives its process.
func TestKilledDecidersLeaveWholeDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	rounds := 50
	if n, err := fmt.Sscan(os.Getenv("ARBITER_KILL_ROUNDS"), &rounds); n == 1 && err == nil {
		t.Logf("%d rounds (ARBITER_KILL_ROUNDS)", rounds)
	}
	var budget time.Duration
	if d := soak(t); d > 0 {
		budget, rounds = d/2, 1<<30
	}
	f := rt.New(t, rt.Policy())
	path := f.Path
	// Conflicts to start from; what the setup recorded counts as told.
	told := newTally()
	for range 40 {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{By: rt.Scout})
		told.units[p.A], told.units[p.B], told.conflicts[p.Conflict] = true, true, true
	}
	f.Store.Close()

	seed := 1000
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Now()
	kills, midOperation := 0, 0
	for round := 0; round < rounds && (budget == 0 || time.Since(start) < budget); round++ {
		var procs []*process
		for range 2 {
			seed++
			procs = append(procs, startWorker(t, "chaos", path, time.Now().Add(time.Minute), seed, 256<<10))
		}
		for _, p := range procs {
			// Killed at a random moment of its work: the time counts from
			// its first operation, not from its start, which on a busy
			// machine may take longer than the whole range.
			p.waitWorking(t)
			time.Sleep(time.Duration(10+rng.IntN(240)) * time.Millisecond)
			p.cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, p := range procs {
			err := <-p.exited
			out := p.output()
			killed := err != nil
			if killed {
				kills++
			}
			before := sumInFlight(told)
			told.add(out, killed)
			if sumInFlight(told) > before {
				midOperation++
			}
		}
	}
	facts := checkField(t, path, told)
	t.Logf("%d kills, %d of them in the middle of a write; %s", kills, midOperation, told)
	t.Logf("%s", facts)
	if kills == 0 || midOperation == 0 {
		t.Errorf("no process was killed in the middle of a write: %d kills", kills)
	}

	// No lock outlives its process: a write goes through at once.
	ctx := context.Background()
	st, err := field.Open(ctx, path, store.Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := review.New(st).Register(ctx, model.Agent{ID: "after-the-kills", Role: "analyst", Authority: 4}); err != nil {
		t.Errorf("writing after the kills: %v", err)
	}
}

func sumInFlight(t *tally) int {
	n := 0
	for _, v := range t.inFlight {
		n += v
	}
	return n
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}
