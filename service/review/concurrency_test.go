package review_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// A decider is one MERGE taken by its own process or goroutine.
type decider struct {
	caller   string
	strategy model.Strategy
	winner   string // "A", "B" or ""
	expect   int64  // the version the decider saw (0: unchecked)
}

func (d decider) request(p rt.Pair) model.MergeRequest {
	switch d.strategy {
	case model.Synthesis:
		r := synthesisReq(p.Conflict, "Both, in different regions.", d.caller+" reconciles")
		r.ExpectedVersion = d.expect
		return r
	}
	winner := map[string]string{"A": p.A, "B": p.B}[d.winner]
	r := req(p.Conflict, d.strategy, winner, d.caller+" decides")
	r.ExpectedVersion = d.expect
	return r
}

// outcome is what a decider reports: "OK" or the protocol error code.
func outcome(err error) string {
	if err == nil {
		return "OK"
	}
	if pe, ok := model.AsError(err); ok {
		return string(pe.Code)
	}
	return "ERROR " + strings.ReplaceAll(err.Error(), "\n", " ")
}

// The environment a decider process reads.
const (
	envDB       = "ARBITER_TEST_DECIDER_DB"
	envConflict = "ARBITER_TEST_DECIDER_CONFLICT"
	envA        = "ARBITER_TEST_DECIDER_A"
	envB        = "ARBITER_TEST_DECIDER_B"
	envAs       = "ARBITER_TEST_DECIDER_AS"
	envStrategy = "ARBITER_TEST_DECIDER_STRATEGY"
	envWinner   = "ARBITER_TEST_DECIDER_WINNER"
	envExpect   = "ARBITER_TEST_DECIDER_EXPECT"
	envStart    = "ARBITER_TEST_DECIDER_START"
)

// TestHelperDecider is not a test: it is the body of a decider process
// started by TestConcurrentDecidersInSeparateProcesses. It opens the field,
// says it is ready, waits for the start file, decides, and prints
// "RESULT <OK or code>".
func TestHelperDecider(t *testing.T) {
	path := os.Getenv(envDB)
	if path == "" {
		return
	}
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		fmt.Println("RESULT ERROR", err)
		return
	}
	defer st.Close()
	expect, _ := strconv.ParseInt(os.Getenv(envExpect), 10, 64)
	d := decider{caller: os.Getenv(envAs), strategy: model.Strategy(os.Getenv(envStrategy)),
		winner: os.Getenv(envWinner), expect: expect}
	p := rt.Pair{Conflict: os.Getenv(envConflict), A: os.Getenv(envA), B: os.Getenv(envB)}
	start := os.Getenv(envStart)
	if err := os.WriteFile(start+".ready."+d.caller, nil, 0o644); err != nil {
		fmt.Println("RESULT ERROR", err)
		return
	}
	// The point: every decider looks for the start signal every 100 µs, so
	// that they all decide within a moment of each other.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Microsecond) {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Println("RESULT ERROR no start signal")
			return
		}
	}
	_, err = review.New(st).Merge(context.Background(), d.caller, d.request(p))
	fmt.Println("RESULT", outcome(err))
}

// race runs the deciders against p at once and returns each one's outcome.
type race func(t *testing.T, f *rt.Field, p rt.Pair, ds []decider) []string

func TestConcurrentDecidersInSeparateProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	runRounds(t, 5, func(t *testing.T, f *rt.Field, p rt.Pair, ds []decider) []string {
		start := filepath.Join(t.TempDir(), "start")
		outs := make([]*bytes.Buffer, len(ds))
		exited := make([]chan error, len(ds))
		for i, d := range ds {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDecider$", "-test.count=1")
			cmd.Env = append(os.Environ(), envDB+"="+f.Path, envConflict+"="+p.Conflict, envA+"="+p.A, envB+"="+p.B,
				envAs+"="+d.caller, envStrategy+"="+string(d.strategy), envWinner+"="+d.winner,
				envExpect+"="+strconv.FormatInt(d.expect, 10), envStart+"="+start)
			outs[i] = &bytes.Buffer{}
			cmd.Stdout, cmd.Stderr = outs[i], outs[i]
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited[i] = make(chan error, 1)
			go func() { exited[i] <- cmd.Wait() }()
		}
		// Every process has the field open before any may decide.
		for i, d := range ds {
			if !waitReady(start+".ready."+d.caller, exited[i]) {
				t.Fatalf("decider %s quit before it was ready:\n%s", d.caller, outs[i])
			}
		}
		if err := os.WriteFile(start, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		results := make([]string, len(ds))
		for i := range ds {
			if err := <-exited[i]; err != nil {
				t.Fatalf("decider %s: %v\n%s", ds[i].caller, err, outs[i])
			}
			results[i] = resultLine(t, outs[i].String())
		}
		return results
	})
}

func TestConcurrentDecidersOnSeparateConnections(t *testing.T) {
	runRounds(t, 5, func(t *testing.T, f *rt.Field, p rt.Pair, ds []decider) []string {
		svcs := make([]*review.Service, len(ds))
		for i := range ds {
			st, err := field.Open(context.Background(), f.Path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			svcs[i] = review.New(st)
		}
		results := make([]string, len(ds))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, d := range ds {
			wg.Go(func() {
				<-start
				_, err := svcs[i].Merge(context.Background(), d.caller, d.request(p))
				results[i] = outcome(err)
			})
		}
		close(start)
		wg.Wait()
		return results
	})
}

// runRounds races a confidence_weighted decision against a synthesis on
// a fresh conflict, rounds times, and checks that exactly one wins and the
// field shows exactly its effects.
func runRounds(t *testing.T, rounds int, run race) {
	for round := range rounds {
		t.Run(fmt.Sprintf("round %d", round+1), func(t *testing.T) {
			f := rt.New(t, rt.Policy())
			p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
			var expect int64
			if round%2 == 0 {
				expect = 1 // even rounds: both saw version 1; odd rounds: unchecked
			}
			ds := []decider{
				{caller: senior1, strategy: model.ConfidenceWeighted, winner: "A", expect: expect},
				{caller: senior2, strategy: model.Synthesis, expect: expect},
			}
			before := rt.Snap(t, f.Path)

			results := run(t, f, p, ds)
			t.Logf("%s: %s, %s: %s", ds[0].caller, results[0], ds[1].caller, results[1])

			won := -1
			for i, r := range results {
				switch {
				case r == "OK" && won < 0:
					won = i
				case r == "OK":
					t.Fatalf("both deciders succeeded: %q", results)
				case r != string(model.CodeInvalidTransition):
					t.Fatalf("decider %s got %s, want OK or INVALID_TRANSITION", ds[i].caller, r)
				}
			}
			if won < 0 {
				t.Fatalf("no decider succeeded: %q", results)
			}
			wantOnlyWinnerEffects(t, f, p, ds[won], before)
		})
	}
}

func wantOnlyWinnerEffects(t *testing.T, f *rt.Field, p rt.Pair, w decider, before rt.Snapshot) {
	t.Helper()
	d := f.Detail(t, p.Conflict)
	c := d.Conflict
	if c.Status != model.StatusResolved || c.Version != 2 || c.Resolution.Strategy != w.strategy || c.Resolution.ResolvedBy != w.caller {
		t.Fatalf("conflict %+v, want resolved once (version 2) by %s with %s", c, w.caller, w.strategy)
	}
	after := rt.Snap(t, f.Path)
	newUnits := after.Count("units") - before.Count("units")
	switch w.strategy {
	case model.Synthesis:
		wantUnitStatus(t, f, p.A, model.UnitSuperseded)
		wantUnitStatus(t, f, p.B, model.UnitSuperseded)
		if newUnits != 1 {
			t.Fatalf("%d units added, want the one synthesis", newUnits)
		}
	default:
		wantUnitStatus(t, f, p.A, model.UnitActive)
		wantUnitStatus(t, f, p.B, model.UnitSuperseded)
		if newUnits != 0 {
			t.Fatalf("%d units added, want none", newUnits)
		}
	}
	var merges int
	for _, e := range d.Events {
		if e.Operation == "MERGE" {
			merges++
		}
	}
	if merges != 1 {
		t.Fatalf("%d MERGE events, want 1", merges)
	}
	if got := after.Count("events") - before.Count("events"); got != 1 {
		t.Fatalf("%d events written, want 1", got)
	}
	if got := after.Count("notifications") - before.Count("notifications"); got != len(authors) {
		t.Fatalf("%d notifications written, want %d", got, len(authors))
	}
	if got := f.Clock(t) - lastClock(before); got != 1 {
		t.Fatalf("the clock moved %d, want 1", got)
	}
}

// lastClock reads the epoch out of a snapshot: the clock row of a file,
// the largest tick of a PostgreSQL field.
func lastClock(s rt.Snapshot) int64 {
	last := int64(-1)
	for _, row := range append(s["clock"], s["ticks"]...) {
		for field := range strings.FieldsSeq(row) {
			if v, ok := strings.CutPrefix(field, "epoch="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				last = max(last, n)
			}
		}
	}
	return last
}

// waitReady waits for a decider's ready file; false if the decider exited
// first (or never got ready).
func waitReady(path string, exited chan error) bool {
	ready, gone := false, false
	testwait.Until(testwait.Deadline, func() bool {
		if _, err := os.Stat(path); err == nil {
			ready = true
			return true
		}
		select {
		case err := <-exited:
			exited <- err
			gone = true
		default:
		}
		return gone
	})
	return ready
}

func resultLine(t *testing.T, out string) string {
	t.Helper()
	for line := range strings.Lines(out) {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "RESULT "); ok {
			return r
		}
	}
	t.Fatalf("no RESULT line in the decider's output:\n%s", out)
	return ""
}
