package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"arbiter/store"
)

// Close waits for a write still running (a screen's command that ends
// after the screen), which commits; a write asked for after Close is
// refused with an error instead of reaching the closed line of writers.
func TestCloseWaitsForTheRunningWriteAndRefusesLaterOnes(t *testing.T) {
	ctx := context.Background()
	st, _ := created(t)
	inside, release := make(chan struct{}), make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		wrote <- st.Write(ctx, func(tx store.Tx) error {
			close(inside)
			<-release
			_, err := tx.EpochTick()
			return err
		})
	}()
	<-inside
	closed := make(chan error, 1)
	go func() { closed <- st.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned while a write was running")
	case <-time.After(100 * time.Millisecond): // the point: Close must still be waiting
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatalf("the write running at Close: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	err := st.Write(ctx, func(tx store.Tx) error { _, err := tx.EpochTick(); return err })
	if !errors.Is(err, errClosed) {
		t.Fatalf("a write after Close: %v, want %v", err, errClosed)
	}
}
