package serve

import (
	"context"
	"sync"
	"time"

	"arbiter/review"
)

// changes waits for the field's changes once for every screen served: one
// poll of a SQLite file every opt.Poll (or one PostgreSQL listener) wakes
// them all, where each screen alone would ask the file every second.
type changes struct {
	svc   *review.Service
	every time.Duration

	mu   sync.Mutex
	wake chan struct{} // closed at the next change
}

func newChanges(svc *review.Service, every time.Duration) *changes {
	return &changes{svc: svc, every: every, wake: make(chan struct{})}
}

// run follows the field until ctx ends.
func (c *changes) run(ctx context.Context) {
	seen, err := c.svc.Changed(ctx)
	for ctx.Err() == nil {
		if err == nil {
			var v int64
			if v, err = c.svc.WaitChange(ctx, seen, c.every); err == nil {
				seen = v
				c.mu.Lock()
				close(c.wake)
				c.wake = make(chan struct{})
				c.mu.Unlock()
				continue
			}
		}
		// The field does not answer: the screens' own reads will say so.
		select {
		case <-ctx.Done():
		case <-time.After(c.every):
		}
		seen, err = c.svc.Changed(ctx)
	}
}

// desk is the field as a served screen sees it: the rules, with the
// field's changes heard from changes instead of each screen's own polls.
type desk struct {
	*review.Service
	changes *changes
}

// WaitChange returns the field's change number once it differs from
// since (review.ChangeWaiter).
func (d desk) WaitChange(ctx context.Context, since int64, _ time.Duration) (int64, error) {
	for {
		d.changes.mu.Lock()
		wake := d.changes.wake
		d.changes.mu.Unlock()
		v, err := d.Service.Changed(ctx)
		if err != nil || v != since {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-wake:
		}
	}
}

var _ review.ChangeWaiter = desk{}
