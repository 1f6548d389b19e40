package broadcast_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"arbiter/internal/broadcast"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// TestMain runs the tests on a SQLite field, then on one on PostgreSQL.
func TestMain(m *testing.M) { os.Exit(reviewtest.Main(m)) }

const wait = 30 * time.Second

// One watch of the field wakes every subscriber at a write by another
// connection; a subscriber whose context ended is dropped and its channel
// closed; WaitChange, a screen's desk's, returns the new change number.
func TestOneWatchWakesEverySubscriberAtAWriteByAnother(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	st, err := field.Open(context.Background(), f.Path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	c := broadcast.NewChanges(review.New(st), 20*time.Millisecond)
	// Subscribed before Run starts: what it publishes first reaches those
	// subscribed then (a later subscriber reads the source itself, as
	// WaitChange does).
	subs := make([]<-chan int64, 5)
	for i := range subs {
		subs[i] = c.Subscribe(ctx)
	}
	gone, leave := context.WithCancel(ctx)
	left := c.Subscribe(gone)
	leave()
	ran := make(chan struct{})
	go func() {
		c.Run(ctx)
		close(ran)
	}()
	// Run publishes the number it starts from: past it, it follows.
	for i, s := range subs {
		select {
		case <-s:
		case <-time.After(wait):
			t.Fatalf("subscriber %d not told where the watch starts", i)
		}
	}
	since, err := f.Svc.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan int64, 1)
	go func() {
		v, _ := c.WaitChange(ctx, since, 0)
		waited <- v
	}()

	score := 0.5
	if _, err := f.Svc.Record(ctx, reviewtest.Standard, model.RecordRequest{Type: model.TypeFinding, Content: "a write",
		Intent: model.Intent{Purpose: "p"}, Confidence: model.Confidence{Score: &score, Reasoning: "r"}}); err != nil {
		t.Fatal(err)
	}
	for i, s := range subs {
		select {
		case <-s:
		case <-time.After(wait):
			t.Fatalf("subscriber %d not woken by a write", i)
		}
	}
	select {
	case v := <-waited:
		if v == since {
			t.Errorf("WaitChange returned the change number it was given, %d", v)
		}
	case <-time.After(wait):
		t.Fatal("WaitChange not woken by a write")
	}
	// Its channel is closed (what was published before it left may
	// still be in it).
	for closed := false; !closed; {
		select {
		case _, open := <-left:
			closed = !open
		case <-time.After(wait):
			t.Fatal("the channel of a subscriber whose context ended is still open")
		}
	}
	// WaitChange's own subscription ends with it.
	if !testwait.Until(wait, func() bool { return c.Subscribers() == 5 }) {
		t.Fatalf("%d subscribers, want 5", c.Subscribers())
	}
	stop()
	select {
	case <-ran:
	case <-time.After(wait):
		t.Fatal("Run did not return when its context ended")
	}
}

// failing is a source that does not answer.
type failing struct{}

func (failing) Changed(context.Context) (int64, error) {
	return 0, errors.New("the field does not answer")
}
func (failing) WaitChange(context.Context, int64, time.Duration) (int64, error) {
	return 0, errors.New("the field does not answer")
}

// A failing source is asked again after a wait that ends with the
// context: a stop is not held by it. (The hub this replaced slept its
// retry without its context.)
func TestRunStopsWhileItsSourceFails(t *testing.T) {
	c := broadcast.NewChanges(failing{}, time.Hour)
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		c.Run(ctx)
		close(ran)
	}()
	stop()
	select {
	case <-ran:
	case <-time.After(wait):
		t.Fatal("Run still waiting on a failing source after its context ended")
	}
}
