package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/field"
	"arbiter/store/sqlite"
)

// fileKillUnits and serverKillUnits are how many units the fork adds for
// the kill -9 tests: enough that a join takes about a second to write.
const (
	fileKillUnits   = 20000
	serverKillUnits = 4000
)

// fillFork adds n units by ana to the fork at path, written in bulk after
// its clock, each supporting the one before (the first, mem-001).
func fillFork(t *testing.T, path string, n int) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	score := 0.6
	err = st.Write(context.Background(), func(tx store.Tx) error {
		epoch, err := tx.Epoch()
		if err != nil {
			return err
		}
		seq, err := tx.UnitSeqNext()
		if err != nil {
			return err
		}
		b, err := tx.Bulk()
		if err != nil {
			return err
		}
		prev := "mem-001"
		for i := range int64(n) {
			id := fmt.Sprintf("mem-%03d", seq+i)
			u := model.Unit{ID: id, Mode: model.ModeCommitted, Type: model.TypeFinding, Status: model.UnitActive,
				Content: fmt.Sprintf("finding %d of the fork", i), Intent: model.Intent{Purpose: "fill the fork"},
				Confidence: model.Confidence{Score: &score, Reasoning: "bulk", Evidence: []string{}, Assumptions: []string{}},
				Source:     model.Source{AgentID: "ana", AgentRole: "analyst", Timestamp: time.Now().UTC()},
				Relations:  []model.Relation{{Type: model.RelSupports, TargetID: prev}}, Epoch: epoch + 1 + i}
			if err := b.Unit(seq+i, u); err != nil {
				b.Close()
				return err
			}
			prev = id
		}
		if err := b.Close(); err != nil {
			return err
		}
		_, err = tx.EpochWitness(epoch + int64(n) - 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stateOf is what must not change when a join is killed: the digest of
// the field's content and its links to forks.
func stateOf(t *testing.T, name string) string {
	t.Helper()
	st, err := field.Open(context.Background(), name, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var s string
	err = st.Read(context.Background(), func(tx store.Tx) error {
		sum, err := store.Digest(tx)
		if err != nil {
			return err
		}
		links, err := tx.FieldLinks()
		s = fmt.Sprintf("%v; links %+v", sum, links)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// killJoins runs `arbiter join` on db again and again, killing it with
// SIGKILL ever later: after a quarter of a second, then each time 1.6
// times later, until a join ends by itself before its kill. However fast
// or loaded the machine, the kills fall early, in the middle and late in
// a join. After each kill the field must be as it was — or, when the kill
// came after the join's commit (the process still ending), hold all of
// the fork's added units, with a join again bringing nothing. It returns
// how many runs were killed before they finished, and how long the run
// that finished took. added is how many units the fork adds.
func killJoins(t *testing.T, db, fork string, added int) (int, time.Duration) {
	t.Helper()
	want := stateOf(t, db)
	before := len(showUnits(t, db))
	killed := 0
	for d := 250 * time.Millisecond; ; d = d * 8 / 5 {
		cmd := exec.Command(bin, "--db", db, "--as", "op", "join", fork)
		cmd.Env = cleanEnv()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(d): // the point: a kill at this moment of the join
			cmd.Process.Kill() // SIGKILL
			<-exited
		}
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() {
			t.Logf("the join ended by itself after %s, before its kill at %s", time.Since(start).Round(time.Millisecond), d)
			return killed, time.Since(start)
		}
		if got := stateOf(t, db); got != want {
			if len(showUnits(t, db)) == before+added && joinReport(t, "--db", db, "--as", "op", "join", fork).Nothing {
				t.Logf("killed after %s, once the join had committed: the field holds the whole of it", d)
				return killed, time.Since(start)
			}
			t.Fatalf("killed after %s, the field changed, and does not hold the whole join:\n was %s\n now %s", d, want, got)
		}
		killed++
		t.Logf("killed after %s: the field is as it was", d)
	}
}

// A join killed with SIGKILL at any moment leaves a field in a SQLite
// file as it was: the same digest, the same links.
func TestAJoinKilledAtAnyMomentLeavesTheFileFieldAsItWas(t *testing.T) {
	db := fieldWithConflict(t)
	fork := filepath.Join(t.TempDir(), "fork.db")
	ok(t, "--db", db, "fork", "--to", fork)
	fillFork(t, fork, fileKillUnits)
	record(t, db, "bob", recordPayload("the field goes on", 0.5, "")) // takes the fork's first id
	if n, took := killJoins(t, db, fork, fileKillUnits); n < 3 {
		t.Fatalf("only %d joins were killed before they finished (a whole join of %d units took %s); the test needs a longer join", n, fileKillUnits, took)
	}
	// The join that ended by itself brought all of it: a join again
	// brings nothing.
	if rep := joinReport(t, "--db", db, "--as", "op", "join", fork); !rep.Nothing {
		t.Fatalf("a join after the whole one added %d units", rep.UnitsAdded)
	}
	if n := len(showUnits(t, db)); n != 3+fileKillUnits {
		t.Fatalf("the field holds %d units after the join, want %d", n, 3+fileKillUnits)
	}
}

// The same with the field on PostgreSQL: the server rolls back what the
// killed process had sent.
func TestAJoinKilledAtAnyMomentLeavesTheServerFieldAsItWas(t *testing.T) {
	file := fieldWithConflict(t)
	server := serverField(t)
	copySummary(t, file, server)
	fork := filepath.Join(t.TempDir(), "fork.db")
	ok(t, "--db", server, "fork", "--to", fork)
	fillFork(t, fork, serverKillUnits)
	if n, took := killJoins(t, server, fork, serverKillUnits); n < 3 {
		t.Fatalf("only %d joins were killed before they finished (a whole join of %d units took %s); the test needs a longer join", n, serverKillUnits, took)
	}
}

// showUnits lists the ids of the units of the field name.
func showUnits(t *testing.T, name string) []string {
	t.Helper()
	st, err := field.Open(context.Background(), name, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []string
	err = st.Read(context.Background(), func(tx store.Tx) error {
		return tx.UnitEach(func(_ int64, u model.Unit) error { ids = append(ids, u.ID); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
