//go:build unix

package sqlite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// lineOf maps the write queue of a new file twice, as two processes would.
func lineOf(t *testing.T) (*writeQueue, *writeQueue) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := openQueue(path), openQueue(path)
	if a == nil || b == nil {
		t.Fatal("the queue could not be mapped")
	}
	t.Cleanup(func() { a.close(); b.close() })
	return a, b
}

func soon() time.Time { return time.Now().Add(10 * time.Second) }

// Writes take turns in the order they came, whichever mapping they use.
func TestWritesTakeTurnsInArrivalOrder(t *testing.T) {
	a, b := lineOf(t)
	ctx := context.Background()
	first, err := a.wait(ctx, soon())
	if err != nil || !first.served {
		t.Fatalf("the first write waits: %v", err)
	}
	var order []int
	done := make(chan struct{})
	var seconds atomic.Int32
	go func() {
		second, err := b.wait(ctx, soon())
		if err != nil {
			t.Error(err)
		}
		seconds.Add(1)
		order = append(order, 2)
		second.release()
		close(done)
	}()
	time.Sleep(50 * time.Millisecond) // the point: time for the second to go ahead, were the line not kept
	if seconds.Load() != 0 {
		t.Fatal("the second write went ahead of the first")
	}
	order = append(order, 1)
	first.release()
	<-done
	if len(order) != 2 || order[0] != 1 {
		t.Fatalf("order %v", order)
	}
}

// A turn held by a process that died is skipped.
func TestADeadWritersTurnIsSkipped(t *testing.T) {
	a, b := lineOf(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	held, err := a.wait(context.Background(), soon())
	if err != nil {
		t.Fatal(err)
	}
	// Make the turn the dead process's, as if it had been killed holding it.
	_, pid := a.slot(held.ticket)
	atomic.StoreInt64(pid, int64(dead.Process.Pid))
	start := time.Now()
	next, err := b.wait(context.Background(), soon())
	if err != nil || !next.served {
		t.Fatalf("the write after a dead one: %v", err)
	}
	if waited := time.Since(start); waited > queueStall {
		t.Fatalf("waited %s, as long as for a stalled live writer", waited)
	}
	next.release()
}

// A write that gives up leaves its ticket abandoned: the one after it
// does not wait for it.
func TestAnAbandonedTicketIsSkipped(t *testing.T) {
	a, b := lineOf(t)
	ctx := context.Background()
	held, _ := a.wait(ctx, soon())
	if _, err := b.wait(ctx, time.Now().Add(30*time.Millisecond)); err != errQueueTimeout {
		t.Fatalf("a write past its deadline: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		tr, err := b.wait(ctx, soon())
		tr.release()
		got <- err
	}()
	held.release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(queueStall / 2):
		t.Fatal("the write after an abandoned ticket waited for it")
	}
}
