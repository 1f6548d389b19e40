// Package broadcast tells many listeners of one source's changes: one
// watch of the field (one poll of a SQLite file, one PostgreSQL listener)
// wakes every screen and every MCP session a process serves, instead of a
// watch each. A Broker holds the listeners, each stopped by its own
// context; Changes follows a source and publishes to one.
//
// It imports nothing of arbiter's: its source is anything with the field's
// two methods of change.
package broadcast

import (
	"context"
	"sync"
	"time"
)

// Broker hands what is published to every subscriber. A subscriber's
// channel holds one value, the latest: one slow to read misses values
// published meanwhile, never the fact that there was one. Publish never
// waits for a subscriber.
type Broker[T any] struct {
	mu   sync.Mutex
	subs map[chan T]struct{}
}

// NewBroker returns a broker with no subscribers.
func NewBroker[T any]() *Broker[T] {
	return &Broker[T]{subs: map[chan T]struct{}{}}
}

// Subscribe returns a channel that receives what is published from now on
// until ctx ends, when the channel is closed.
func (b *Broker[T]) Subscribe(ctx context.Context) <-chan T {
	ch := make(chan T, 1)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, ch)
		close(ch)
	})
	return ch
}

// Publish hands v to every subscriber, replacing a value not yet read.
func (b *Broker[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- v:
			continue
		default:
		}
		select {
		case <-ch:
		default:
		}
		select {
		case ch <- v:
		default:
		}
	}
}

// Subscribers is how many subscriptions are open.
func (b *Broker[T]) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Source is what changes: the field as review.Service gives it, a number
// that moves at every commit and a wait for it to move.
type Source interface {
	Changed(ctx context.Context) (int64, error)
	WaitChange(ctx context.Context, since int64, every time.Duration) (int64, error)
}

// Changes follows a source and publishes its change numbers to everyone
// subscribed.
type Changes struct {
	*Broker[int64]
	src   Source
	every time.Duration
}

// NewChanges returns the changes of src; every is how often a source that
// cannot announce its changes is asked, and how long a failing one is
// left before it is asked again. Run follows it.
func NewChanges(src Source, every time.Duration) *Changes {
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	return &Changes{Broker: NewBroker[int64](), src: src, every: every}
}

// Run follows the source until ctx ends: it publishes the change number
// it starts from, then each change. A failure is not reported: the
// listeners' own reads of the source will say it.
func (c *Changes) Run(ctx context.Context) {
	seen, err := c.src.Changed(ctx)
	if err == nil {
		c.Publish(seen)
	}
	for ctx.Err() == nil {
		if err == nil {
			var v int64
			if v, err = c.src.WaitChange(ctx, seen, c.every); err == nil {
				seen = v
				c.Publish(v)
				continue
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.every):
		}
		var v int64
		if v, err = c.src.Changed(ctx); err == nil && v != seen {
			seen = v
			c.Publish(v) // what changed while the source failed
		}
	}
}

// WaitChange returns the source's change number once it differs from
// since, woken by Run rather than asking the source itself: the shape of
// review.ChangeWaiter, for a screen's desk.
func (c *Changes) WaitChange(ctx context.Context, since int64, _ time.Duration) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake := c.Subscribe(ctx) // before the read, so that no change falls between
	for {
		v, err := c.src.Changed(ctx)
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
