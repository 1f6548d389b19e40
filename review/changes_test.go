package review_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"arbiter/field"
	"arbiter/model"
	"arbiter/review"
	rt "arbiter/review/reviewtest"
	"arbiter/store"
)

// WaitChange wakes when another process's write commits — pushed on
// PostgreSQL, polled on a file — answers at once for a number already
// stale, and ends with its context.
func TestWaitChangeWakesAtAnotherProcesssCommit(t *testing.T) {
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	other, err := field.Open(ctx, f.Path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	v0, err := f.Svc.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, time.Minute) // a hang, not a speed target
		defer cancel()
		v, _ := f.Svc.WaitChange(wctx, v0, 50*time.Millisecond)
		got <- v
	}()
	time.Sleep(100 * time.Millisecond)
	select {
	case v := <-got:
		t.Fatalf("WaitChange returned %d before anyone wrote", v)
	default:
	}
	if _, err := review.New(other).Register(ctx, model.Agent{ID: "newcomer", Role: "analyst", Authority: 4}); err != nil {
		t.Fatal(err)
	}
	v1 := <-got
	if v1 == v0 {
		t.Fatalf("WaitChange returned the number it was given, %d", v1)
	}
	if v, err := review.WaitChange(ctx, f.Svc, v0, time.Second); err != nil || v != v1 {
		t.Fatalf("waiting on a stale number: %d (%v), want %d at once", v, err, v1)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Svc.WaitChange(cctx, v1, time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
}
