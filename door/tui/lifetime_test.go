package tui

import (
	"context"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/service/demo"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
)

// watchedField is a field that counts the screen's waits for a change
// under way.
type watchedField struct {
	*review.Service
	started, waiting atomic.Int64
}

func (w *watchedField) WaitChange(ctx context.Context, since int64, poll time.Duration) (int64, error) {
	w.started.Add(1)
	w.waiting.Add(1)
	defer w.waiting.Add(-1)
	return w.Service.WaitChange(ctx, since, poll)
}

// until waits, up to a deadline generous for a loaded machine, for cond;
// it reports whether cond became true.
func until(cond func() bool) bool { return testwait.Until(testwait.Deadline, cond) }

func TestQuittingTheScreenStopsItsWatchOnTheField(t *testing.T) {
	svc := &watchedField{Service: openService(t, demoField(t), false)}
	in, keys := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), svc, Options{Field: "field.db", Theme: "dark"},
			tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithoutSignals(), tea.WithWindowSize(100, 30))
	}()
	if !until(func() bool { return svc.waiting.Load() == 1 }) {
		t.Fatalf("the screen never watched the field (%d waits started)", svc.started.Load())
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the screen ended with %v", err)
		}
	case <-time.After(testwait.Deadline):
		t.Fatal("q did not end the screen")
	}
	if !until(func() bool { return svc.waiting.Load() == 0 }) {
		t.Fatalf("the screen ended and its watch on the field goes on (%d waiting)", svc.waiting.Load())
	}
	keys.Close() // the terminal goes, as a closed session's does
	if !until(func() bool { return len(screenGoroutines()) == 0 }) {
		t.Fatalf("the screen ended and left goroutines running:\n%s", strings.Join(screenGoroutines(), "\n\n"))
	}
}

// A closed session ends its screen by its context, not by a key: the
// screen's program ends, and its watch and goroutines with it.
func TestEndingTheSessionsContextEndsTheScreenAndItsWatch(t *testing.T) {
	svc := &watchedField{Service: openService(t, demoField(t), false)}
	in, keys := io.Pipe()
	defer keys.Close()
	ctx, endSession := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, svc, Options{Field: "field.db", As: demo.Operator, Theme: "dark"},
			tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithoutSignals(), tea.WithWindowSize(100, 30))
	}()
	if !until(func() bool { return svc.waiting.Load() == 1 }) {
		t.Fatalf("the screen never watched the field (%d waits started)", svc.started.Load())
	}
	endSession()
	select {
	case <-done:
	case <-time.After(testwait.Deadline):
		t.Fatal("the session's end did not end the screen")
	}
	if !until(func() bool { return svc.waiting.Load() == 0 }) {
		t.Fatalf("the session ended and the screen's watch on the field goes on (%d waiting)", svc.waiting.Load())
	}
	keys.Close()
	if !until(func() bool { return len(screenGoroutines()) == 0 }) {
		t.Fatalf("the session ended and left goroutines running:\n%s", strings.Join(screenGoroutines(), "\n\n"))
	}
}

// screenGoroutines are the stacks of the goroutines, other than the
// caller's and the tests' own, that run the screen's code or the
// program's.
func screenGoroutines() []string {
	buf := make([]byte, 1<<20)
	stacks := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
	var out []string
	for _, s := range stacks[1:] {
		screen := strings.Contains(s, "arbiter/door/tui.") && !strings.Contains(s, "arbiter/door/tui.Test")
		if screen || strings.Contains(s, "charm.land/bubbletea") {
			out = append(out, s)
		}
	}
	return out
}
