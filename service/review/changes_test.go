package review_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
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
	time.Sleep(100 * time.Millisecond) // the point: two polls with nothing written return nothing
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

// BenchmarkChangeSeen is how soon a screen waiting for changes
// (Service.WaitChange, as the review screen and the MCP server wait)
// sees another process's write: from the writer asking (the write's own
// time included) to the waiter waking. On the field ARBITER_BENCH_POSTGRES names the change
// arrives by LISTEN/NOTIFY; otherwise on a new SQLite file, polled every
// 100 ms (the MCP server's interval; the screen's is a second).
//
//	ARBITER_BENCH_POSTGRES=postgres://… go test ./service/review -run '^$' -bench ChangeSeen -benchtime 200x
//	ARBITER_BENCH_POSTGRES=postgres://…pooler… ARBITER_BENCH_LISTEN_DB=postgres://…server… go test ./service/review -run '^$' -bench ChangeSeen -benchtime 200x
func BenchmarkChangeSeen(b *testing.B) {
	ctx := context.Background()
	name := os.Getenv("ARBITER_BENCH_POSTGRES")
	if name == "" {
		f := rt.New(b, rt.Policy())
		name = f.Path
	}
	open := func() *review.Service {
		// Behind a pooler, ARBITER_BENCH_LISTEN_DB is the direct
		// connection the waiter listens on (none: it polls every 2 s).
		st, err := field.Open(ctx, name, store.Options{ListenDB: os.Getenv("ARBITER_BENCH_LISTEN_DB")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return review.New(st)
	}
	screen, writer := open(), open()
	v, err := screen.Changed(ctx)
	if err != nil {
		b.Fatal(err)
	}
	type seen struct {
		v  int64
		at time.Time
	}
	woke := make(chan seen)
	next := make(chan int64)
	go func() {
		for since := range next {
			got, err := screen.WaitChange(ctx, since, 100*time.Millisecond)
			if err != nil {
				b.Error(err)
			}
			woke <- seen{got, time.Now()}
		}
	}()
	defer close(next)
	phase := rand.New(rand.NewPCG(3, 4))
	var times []time.Duration
	i := 0
	for b.Loop() {
		next <- v
		b.StopTimer()
		time.Sleep(time.Duration(phase.Int64N(int64(100 * time.Millisecond)))) // any moment of a poll
		b.StartTimer()
		asked := time.Now()
		if _, err := writer.Register(ctx, model.Agent{ID: fmt.Sprintf("bench-%d-%d", os.Getpid(), i), Role: "analyst", Authority: 4}); err != nil {
			b.Fatal(err)
		}
		s := <-woke
		times = append(times, s.at.Sub(asked))
		v = s.v
		i++
	}
	benchmetrics.Percentiles(b, times)
}
