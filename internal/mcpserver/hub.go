package mcpserver

import (
	"context"
	"sync"
	"time"

	"arbiter/review"
)

// hub watches the field once for every agent served over HTTP: one wait
// on the field (one poll of a SQLite file, one listener on PostgreSQL)
// wakes every agent's watcher, instead of one poll per agent.
type hub struct {
	svc   *review.Service
	every time.Duration

	mu   sync.Mutex
	gen  int64         // changes seen so far
	wake chan struct{} // closed at the next change
}

func newHub(svc *review.Service, every time.Duration) *hub {
	return &hub{svc: svc, every: every, wake: make(chan struct{})}
}

// run waits for the field's changes until ctx ends, and wakes the
// waiters at each.
func (h *hub) run(ctx context.Context) {
	seen, err := h.svc.Changed(ctx)
	for err != nil && ctx.Err() == nil {
		time.Sleep(h.every)
		seen, err = h.svc.Changed(ctx)
	}
	for ctx.Err() == nil {
		v, err := h.svc.WaitChange(ctx, seen, h.every)
		if err != nil {
			if ctx.Err() == nil {
				time.Sleep(h.every) // transient: the waiters' reads will say
			}
			continue
		}
		seen = v
		h.mu.Lock()
		h.gen++
		close(h.wake)
		h.wake = make(chan struct{})
		h.mu.Unlock()
	}
}

// waiter is the changes of one agent's watcher, from the hub.
func (h *hub) waiter() *hubWaiter {
	h.mu.Lock()
	defer h.mu.Unlock()
	return &hubWaiter{h: h, seen: h.gen}
}

type hubWaiter struct {
	h    *hub
	seen int64
}

// Next returns once the hub has seen a change since the previous call.
func (w *hubWaiter) Next(ctx context.Context) error {
	for {
		w.h.mu.Lock()
		gen, wake := w.h.gen, w.h.wake
		w.h.mu.Unlock()
		if gen != w.seen {
			w.seen = gen
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}
