package reliability

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	rt "arbiter/service/review/reviewtest"
)

// TestMain runs a worker when started as one; otherwise the tests, on a
// SQLite file and then on PostgreSQL (reviewtest.Main), whose workers get
// the field's connection string.
func TestMain(m *testing.M) {
	if os.Getenv(envRole) != "" {
		os.Exit(runWorker())
	}
	os.Exit(rt.Main(m))
}

// soak is how long ARBITER_SOAK asks the tests to run ("1": two minutes),
// or 0 for the short runs of CI.
func soak(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv("ARBITER_SOAK")
	switch v {
	case "", "0":
		return 0
	case "1", "true":
		return 2 * time.Minute
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("ARBITER_SOAK=%q: use 1 or a duration like 10m", v)
	}
	return d
}

// newWorkerCmd is this test binary started as a worker of role on the
// field at path, with more environment in env.
func newWorkerCmd(role, path string, until time.Time, seed int, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envField+"="+path,
		envUntil+"="+strconv.FormatInt(until.UnixNano(), 10), envSeed+"="+strconv.Itoa(seed))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// process is one worker.
type process struct {
	role   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	exited chan error
	// working is closed when the worker says it tries its first
	// operation: it has opened the field and is at work.
	working    chan struct{}
	sawWorking bool
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, err := p.out.Write(b)
	if p.working != nil && !p.sawWorking && bytes.Contains(p.out.Bytes(), []byte("TRY ")) {
		p.sawWorking = true
		close(p.working)
	}
	return n, err
}

// waitWorking returns once p is at work, or has exited; a minute is a
// net for a worker that never starts, not a measure.
func (p *process) waitWorking(t *testing.T) {
	t.Helper()
	select {
	case <-p.working:
	case err := <-p.exited:
		p.exited <- err // for whoever waits next
	case <-time.After(time.Minute):
		t.Fatalf("%s worker did not start in a minute:\n%s", p.role, tail(p.output()))
	}
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// startWorker starts this binary as a worker of role on the field at
// path, working until the deadline.
func startWorker(t *testing.T, role, path string, until time.Time, seed int, big int) *process {
	t.Helper()
	p := &process{role: role, exited: make(chan error, 1), working: make(chan struct{})}
	p.cmd = newWorkerCmd(role, workerPath(t, path), until, seed, envBig+"="+strconv.Itoa(big))
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	return p
}

// tally is what workers said they did.
type tally struct {
	processes int
	units     map[string]bool // recorded, as RECORD answered
	conflicts map[string]bool // opened by a RECORD
	merges    map[string]int  // strategy → MERGEs accepted
	mergedIDs map[string]int  // conflict → MERGEs accepted
	votes     int             // ballots accepted
	votedIDs  map[string]int
	// swept counts what sweeps said they did, by "conflict kind".
	swept   map[string]int
	refused map[string]int // code → expected refusals
	// inFlight counts, per operation, the processes killed after trying
	// it and before hearing back: the field may or may not hold it.
	inFlight   map[string]int
	unexpected []string
	tries      int
	// slowest is the longest any operation took, per operation, from
	// trying it to the field's answer (waiting for the lock included).
	slowest map[string]time.Duration
}

func newTally() *tally {
	return &tally{units: map[string]bool{}, conflicts: map[string]bool{}, merges: map[string]int{},
		mergedIDs: map[string]int{}, votedIDs: map[string]int{}, refused: map[string]int{}, inFlight: map[string]int{},
		slowest: map[string]time.Duration{}, swept: map[string]int{}}
}

// add reads one worker's output. A killed worker's last line may be cut
// short: it is ignored, and a TRY with no answer after it is in flight.
func (t *tally) add(out string, killed bool) {
	t.processes++
	if killed {
		if i := strings.LastIndexByte(out, '\n'); i >= 0 {
			out = out[:i+1]
		} else {
			out = ""
		}
	}
	pending := ""
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "TRY":
			t.tries++
			pending = f[1]
			continue
		case "OK":
			switch f[1] {
			case "record":
				t.units[f[2]] = true
				if len(f) > 3 {
					t.conflicts[f[3]] = true
				}
			case "merge":
				t.merges[f[3]]++
				t.mergedIDs[f[2]]++
			case "vote":
				t.votes++
				t.votedIDs[f[2]]++
			case "sweep":
				t.swept[f[2]+" "+f[3]]++
				continue // more lines of the same sweep may follow
			}
		case "REFUSED":
			t.refused[f[1]]++
		case "UNEXPECTED":
			t.unexpected = append(t.unexpected, strings.TrimSpace(line))
		case "SLOWEST":
			ms, _ := strconv.Atoi(f[2])
			t.slowest[f[1]] = max(t.slowest[f[1]], time.Duration(ms)*time.Millisecond)
		}
		pending = ""
	}
	if pending != "" {
		t.inFlight[pending]++
	}
}

func (t *tally) merged() int {
	n := 0
	for _, v := range t.merges {
		n += v
	}
	return n
}

func (t *tally) String() string {
	return fmt.Sprintf("%d processes: %d operations tried; %d units and %d conflicts recorded, %d decisions %v, %d ballots; refused (expected) %v; in flight when killed %v; slowest %v",
		t.processes, t.tries, len(t.units), len(t.conflicts), t.merged(), t.merges, t.votes, t.refused, t.inFlight, t.slowest)
}
