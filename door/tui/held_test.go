package tui

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// heldBy is what the field at path holds of agent's decisions in an undo
// window.
func heldBy(t *testing.T, path, agent string) []model.HeldDecision {
	t.Helper()
	st, err := arbiterfield.Open(context.Background(), path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []model.HeldDecision
	if err := st.Read(context.Background(), func(tx store.Tx) (err error) { out, err = tx.HeldOf(agent); return err }); err != nil {
		t.Fatal(err)
	}
	return out
}

// sweepLater sweeps the field at path an hour after the screens' clock,
// when every decision held now is due.
func sweepLater(t *testing.T, path string) model.SweepReport {
	t.Helper()
	st, err := arbiterfield.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := review.New(st).WithClock(func() time.Time { return screenNow.Add(time.Hour) }).Sweep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// keepBOn008 decides demo conflict-008 for B from the queue's prompt, and
// waits for its undo window.
func keepBOn008(s *driver) {
	s.waitFor("▸ conflict-008")
	s.keys("B")
	s.waitFor("Keep B conflict-008: mem-026 prevails by last_write_wins")
	s.typeText("Production numbers win.")
	s.keys("enter")
	s.waitFor("conflict-008: keep B (last_write_wins) — written in")
}

// A session that ends — its context, as a dropped connection's — with a
// decision in its undo window writes it as the screen ends; the person's
// next screen says it was written.
func TestASessionThatEndsInTheUndoWindowWritesTheDecision(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	in, keys := io.Pipe()
	defer keys.Close()
	ctx, endSession := context.WithCancel(context.Background())
	done := make(chan error, 1)
	screen := &drawn{}
	go func() {
		done <- Run(ctx, svc, Options{Field: "field.db", As: demo.Operator, Theme: "dark", UndoWindow: time.Minute},
			tea.WithInput(in), tea.WithOutput(screen), tea.WithoutSignals(), tea.WithWindowSize(140, 40))
	}()
	if !until(func() bool {
		d, err := svc.Detail(context.Background(), "conflict-008")
		return err == nil && d.Conflict.Status == model.StatusEscalated
	}) {
		t.Fatal("the demo's conflict-008 is not escalated")
	}
	// The queue opens on conflict-008: once it is drawn, keep B, a
	// rationale, enter.
	if !until(func() bool { return strings.Contains(ansi.Strip(screen.String()), "conflict-008") }) {
		t.Fatalf("the screen never drew its queue:\n%s", ansi.Strip(screen.String()))
	}
	for _, k := range []string{"B", "Production numbers win.", "\r"} {
		if _, err := keys.Write([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if !until(func() bool { return len(heldBy(t, path, demo.Operator)) == 1 }) {
		t.Fatal("the decision never reached its undo window in the field")
	}
	endSession()
	select {
	case <-done:
	case <-time.After(testwait.Deadline):
		t.Fatal("the session's end did not end the screen")
	}
	d := detailOf(t, svc, "conflict-008")
	if d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution.ResolvedBy != demo.Operator ||
		d.Conflict.Resolution.Rationale != "Production numbers win." {
		t.Fatalf("the decision in its window when the session ended: %s %+v", d.Conflict.Status, d.Conflict.Resolution)
	}
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("Written after your screen closed: conflict-008: last_write_wins, keeping mem-026.")
	if held := heldBy(t, path, demo.Operator); len(held) != 0 {
		t.Errorf("the field still holds %+v after the next screen said so", held)
	}
}

// A screen killed outright (nothing runs after it) leaves its decision
// held in the field: the next screen of the person says so, and once a
// sweep has written it, says that.
func TestADecisionOfAKilledScreenIsWrittenByTheSweepAndTold(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	killed := start(t, svc, demo.Operator, 140, 40, func(o *Options) { o.UndoWindow = time.Minute })
	keepBOn008(killed)
	// Nothing more of the killed screen runs: no tick, no leave.
	close(killed.stop)
	killed.stop = make(chan struct{})

	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("Held from a screen that closed, for the field's sweep to write: conflict-008: last_write_wins, keeping mem-026.")
	if rep := sweepLater(t, path); len(rep.Held) != 1 || !rep.Held[0].Written {
		t.Fatalf("the sweep: %+v", rep.Held)
	}
	s.waitFor("Written after your screen closed: conflict-008: last_write_wins, keeping mem-026.")
	s.keys("down")
	s.waitGone("Written after your screen closed")
}

// A decision the field refuses by the time the sweep writes it: the next
// screen says it was not written, and why.
func TestARefusedHeldDecisionIsToldOnTheNextScreen(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	killed := start(t, svc, demo.Operator, 140, 40, func(o *Options) { o.UndoWindow = time.Minute })
	keepBOn008(killed)
	close(killed.stop)
	killed.stop = make(chan struct{})
	if _, err := svc.Merge(context.Background(), demo.Operator, model.MergeRequest{ConflictID: "conflict-008", Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "both runs were misconfigured"}}); err != nil {
		t.Fatal(err)
	}
	if rep := sweepLater(t, path); len(rep.Held) != 1 || rep.Held[0].Written {
		t.Fatalf("the sweep: %+v", rep.Held)
	}
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitForWrapped("Not written after your screen closed (your inbox has it): conflict-008: last_write_wins, keeping mem-026 — conflict-008 changed since you read it")
}

// drawn is what a program wrote to its terminal, read while it runs.
type drawn struct {
	mu sync.Mutex
	b  strings.Builder
}

func (d *drawn) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.b.Write(p)
}

func (d *drawn) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.b.String()
}
