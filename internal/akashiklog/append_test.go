package akashiklog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// batchEntry marks which writer's batch, and which part of it, a line is.
type batchEntry struct {
	Topic  string `json:"topic"`
	Writer string `json:"writer"`
	Batch  int    `json:"batch"`
	Part   int    `json:"part"`
}

const (
	batchSize    = 3
	contendPause = DefaultLockRetry + 5*time.Millisecond
)

// appendBatches appends n batches of batchSize records as writer. Writers
// that pause between batches for longer than the lock retry interval let
// the others in, so their batches mingle in the file.
func appendBatches(a Appender, path, writer string, n int, pause time.Duration) error {
	for b := range n {
		if b > 0 {
			time.Sleep(pause)
		}
		err := a.Append(path, func(tail Tail) ([]Event, error) {
			events := make([]Event, batchSize)
			for p := range events {
				entry, _ := json.Marshal(batchEntry{"append", writer, b, p})
				events[p] = Event{
					Type: TypeRecord, Lamport: tail.MaxLamport + 1, Agent: &writer,
					EntryID: NewEventID(time.Now()), Entry: entry, Intent: testIntent,
				}
			}
			return events, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// assertWholeBatches checks that seq runs 1..n in file order and that every
// batch's lines sit together, in order.
func assertWholeBatches(t *testing.T, path string, wantEvents int) {
	t.Helper()
	log, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if log.TornTail || len(log.Events) != wantEvents {
		t.Fatalf("torn = %v, events = %d, want %d", log.TornTail, len(log.Events), wantEvents)
	}
	seen := map[string]bool{}
	for i, e := range log.Events {
		if e.Seq != int64(i+1) {
			t.Fatalf("line %d has seq %d", e.Line, e.Seq)
		}
		var got batchEntry
		if err := json.Unmarshal(e.Entry, &got); err != nil {
			t.Fatal(err)
		}
		if got.Part != i%batchSize {
			t.Fatalf("line %d is part %d of %s's batch %d: batches interleaved", e.Line, got.Part, got.Writer, got.Batch)
		}
		if got.Part > 0 {
			var prev batchEntry
			json.Unmarshal(log.Events[i-1].Entry, &prev)
			if prev.Writer != got.Writer || prev.Batch != got.Batch {
				t.Fatalf("line %d (%s/%d) follows %s/%d mid-batch", e.Line, got.Writer, got.Batch, prev.Writer, prev.Batch)
			}
		} else {
			key := fmt.Sprintf("%s/%d", got.Writer, got.Batch)
			if seen[key] {
				t.Fatalf("batch %s written twice", key)
			}
			seen[key] = true
		}
	}
}

func TestAppendContinuesSeqAndKeepsExistingLines(t *testing.T) {
	path := writeLog(t, jsonl(t,
		register("E1", 4, "ada", "researcher"),
		record("E2", 9, "ada", "R1", `{"topic":"db"}`),
	))
	ada := "ada"
	var seen Tail
	err := Append(path, func(tail Tail) ([]Event, error) {
		seen = tail
		return []Event{
			{Type: TypeStatusChange, Lamport: tail.MaxLamport + 1, Agent: &ada, EntryID: "R1", NewStatus: StatusRetracted, Intent: testIntent},
			{Type: TypeDeregister, Lamport: tail.MaxLamport + 2, Agent: &ada, EntryID: "ada"},
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.MaxSeq != 2 || seen.MaxLamport != 9 || !seen.Has("E2") || seen.Has("E3") || len(seen.Events) != 2 {
		t.Fatalf("tail = %+v", seen)
	}
	log, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, e := range log.Events {
		seqs = append(seqs, e.Seq)
	}
	if !slices.Equal(seqs, []int64{1, 2, 3, 4}) {
		t.Fatalf("seqs = %v", seqs)
	}
	if added := log.Events[2]; added.V != 1 || len(added.EventID) != 26 || added.WallTime == 0 || added.Lamport != 10 {
		t.Fatalf("appended event = %+v", added)
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock left behind: %v", err)
	}
}

func TestAppendCreatesAMissingLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.jsonl")
	if err := appendBatches(Appender{}, path, "ada", 2, 0); err != nil {
		t.Fatal(err)
	}
	assertWholeBatches(t, path, 2*batchSize)
}

func TestAppendFromGoroutinesNeverInterleaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "field.jsonl")
	const writers, batches = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() { errs <- appendBatches(Appender{}, path, fmt.Sprintf("g%d", w), batches, contendPause) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	assertWholeBatches(t, path, writers*batches*batchSize)
}

const (
	helperLogEnv     = "AKASHIKLOG_HELPER_LOG"
	helperWriterEnv  = "AKASHIKLOG_HELPER_WRITER"
	helperStartEnv   = "AKASHIKLOG_HELPER_START"
	processBatches   = 15
	processStartWait = 500 * time.Millisecond
)

// TestHelperAppendProcess is not a test: TestAppendFromProcessesNeverInterleaves
// runs the test binary again with this test selected to get writer processes.
func TestHelperAppendProcess(t *testing.T) {
	path := os.Getenv(helperLogEnv)
	if path == "" {
		t.Skip("helper process for TestAppendFromProcessesNeverInterleaves")
	}
	start, err := time.Parse(time.RFC3339Nano, os.Getenv(helperStartEnv))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(start))
	if err := appendBatches(Appender{}, path, os.Getenv(helperWriterEnv), processBatches, contendPause); err != nil {
		t.Fatal(err)
	}
}

func TestAppendFromProcessesNeverInterleaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "field.jsonl")
	// Every writer starts at the same moment, after the processes are up,
	// so that they contend for the lock.
	start := time.Now().Add(processStartWait)
	var procs []*exec.Cmd
	var outputs []*strings.Builder
	for _, writer := range []string{"p1", "p2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppendProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			helperLogEnv+"="+path, helperWriterEnv+"="+writer, helperStartEnv+"="+start.Format(time.RFC3339Nano))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs, outputs = append(procs, cmd), append(outputs, out)
	}
	time.Sleep(time.Until(start))
	localErr := appendBatches(Appender{}, path, "local", processBatches, contendPause) // a third writer
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process %d: %v\n%s", i+1, err, outputs[i])
		}
	}
	if localErr != nil {
		t.Fatal(localErr)
	}
	assertWholeBatches(t, path, 3*processBatches*batchSize)
}

func TestAppendTakesOverAStaleLock(t *testing.T) {
	path := writeLog(t, "")
	lock := path + ".lock"
	if err := os.WriteFile(lock, []byte("pid 99999 (crashed)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-31 * time.Second)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := appendBatches(Appender{}, path, "ada", 1, 0); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Fatalf("took %s to break a stale lock", waited)
	}
	assertWholeBatches(t, path, batchSize)
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock left behind: %v", err)
	}
}

func TestAppendGivesUpOnAHeldLock(t *testing.T) {
	original := jsonl(t, register("E1", 1, "ada", "researcher"))
	path := writeLog(t, original)
	lock := path + ".lock"
	if err := os.WriteFile(lock, []byte("pid 4242 at 2026-01-01T00:00:00Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := Appender{LockTimeout: 150 * time.Millisecond, LockRetry: 10 * time.Millisecond}
	called := false
	err := a.Append(path, func(Tail) ([]Event, error) { called = true; return nil, nil })
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("err = %v, want ErrLockTimeout", err)
	}
	for _, part := range []string{lock, "150ms", "pid 4242", "delete that file"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not mention %q", err, part)
		}
	}
	if called {
		t.Fatal("build ran without the lock")
	}
	if _, statErr := os.Stat(lock); statErr != nil {
		t.Fatalf("someone else's lock was removed: %v", statErr)
	}
	if got, _ := os.ReadFile(path); string(got) != original {
		t.Fatalf("log changed:\n%s", got)
	}
}

func TestAppendCutsOffATornTail(t *testing.T) {
	path := writeLog(t, jsonl(t, register("E1", 1, "ada", "researcher"))+`{"v":1,"event_`)
	var sawTorn bool
	err := Append(path, func(tail Tail) ([]Event, error) {
		sawTorn = tail.TornTail
		return []Event{{Type: TypeDeregister, Lamport: 2, EntryID: "ada"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	log, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !sawTorn || log.TornTail || len(log.Events) != 2 || log.Events[1].Seq != 2 {
		t.Fatalf("saw torn = %v, log = %+v", sawTorn, log)
	}
}

func TestAppendEndsAnUnterminatedLastLine(t *testing.T) {
	path := writeLog(t, strings.TrimSuffix(jsonl(t, register("E1", 1, "ada", "researcher")), "\n"))
	err := Append(path, func(Tail) ([]Event, error) {
		return []Event{{Type: TypeDeregister, Lamport: 2, EntryID: "ada"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if log, err := ReadFile(path); err != nil || len(log.Events) != 2 {
		t.Fatalf("log = %+v, err = %v", log, err)
	}
}

func TestAppendWritesNothingWhenTheBatchIsRejected(t *testing.T) {
	original := jsonl(t, register("E1", 1, "ada", "researcher"))
	for _, tc := range []struct {
		name  string
		build func(Tail) ([]Event, error)
		want  string
	}{
		{"build fails", func(Tail) ([]Event, error) { return nil, errors.New("no decisions") }, "no decisions"},
		{"event_id already in the log", func(Tail) ([]Event, error) {
			return []Event{{EventID: "E1", Type: TypeDeregister, EntryID: "ada"}}, nil
		}, "event_id E1 is already in the log"},
		{"invalid event", func(Tail) ([]Event, error) {
			return []Event{
				{Type: TypeDeregister, EntryID: "ada"},
				{Type: TypeRecord, EntryID: "R1", Entry: json.RawMessage(`{}`), Intent: "short"},
			}, nil
		}, "intent must be at least 10 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeLog(t, original)
			err := Append(path, tc.build)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if got, _ := os.ReadFile(path); string(got) != original {
				t.Fatalf("log changed:\n%s", got)
			}
			if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("lock left behind: %v", err)
			}
		})
	}
}

func TestAppendRefusesACorruptLog(t *testing.T) {
	path := writeLog(t, "{oops\n"+jsonl(t, register("E1", 1, "ada", "researcher")))
	err := Append(path, func(Tail) ([]Event, error) { t.Fatal("build ran"); return nil, nil })
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("err = %v", err)
	}
}

func TestNewEventIDIncreasesWithinAMillisecond(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				id := NewEventID(now)
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	prev := NewEventID(now)
	next := NewEventID(now)
	if !(prev < next) || len(prev) != 26 {
		t.Fatalf("%s then %s", prev, next)
	}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != 400 {
		t.Fatal("duplicate event ids")
	}
}
