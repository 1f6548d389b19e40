package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The change signal. Every write ticks the clock, and a trigger on the
// clock row sends NOTIFY on the channel "arbiter <schema>" with the new
// epoch: PostgreSQL delivers it when the writing transaction commits,
// and never for one that rolls back, whoever wrote (arbiter or another
// program that follows the field format). A Store that is asked to wait
// for changes listens on a connection of its own and wakes its waiters
// at each notification; a slow poll of the clock (backstop) covers a
// notification lost with a broken connection, and while the listening
// connection is being made again.

// backstop is how often a waiter reads the clock when nothing woke it.
const backstop = 3 * time.Second

// Changed is the field's epoch: every write ticks it once, so it changes
// with every commit, by anyone.
func (s *Store) Changed(ctx context.Context) (int64, error) {
	var e int64
	if err := s.queryRow(ctx, `SELECT epoch FROM clock WHERE id = 1`).Scan(&e); err != nil {
		return 0, s.translate("WATCH", err)
	}
	return e, nil
}

// WaitChange returns the field's epoch once it differs from since: at
// once if it already does, else when another commit's notification
// arrives (or the backstop finds it moved), or with ctx's error.
func (s *Store) WaitChange(ctx context.Context, since int64) (int64, error) {
	s.changes.start()
	for {
		wake := s.changes.next()
		v, err := s.Changed(ctx)
		if err != nil || v != since {
			return v, err
		}
		timer := time.NewTimer(backstop)
		select {
		case <-ctx.Done():
			timer.Stop()
			return v, ctx.Err()
		case <-wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// listener holds the listening connection, made the first time someone
// waits.
type listener struct {
	s       *Store
	mu      sync.Mutex
	wake    chan struct{} // closed at the next notification
	started bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func newListener(s *Store) *listener {
	return &listener{s: s, wake: make(chan struct{})}
}

// next is the channel closed at the next notification.
func (l *listener) next() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wake
}

// broadcast wakes every waiter.
func (l *listener) broadcast() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.wake)
	l.wake = make(chan struct{})
}

func (l *listener) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return
	}
	l.started = true
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	go l.run(ctx)
}

func (l *listener) close() {
	l.mu.Lock()
	started := l.started
	l.mu.Unlock()
	if started {
		l.cancel()
		<-l.done
	}
}

// run listens until ctx ends, connecting again after a failure.
func (l *listener) run(ctx context.Context) {
	defer close(l.done)
	channel := pgx.Identifier{"arbiter " + l.s.schema}.Sanitize()
	retry := 100 * time.Millisecond
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, l.s.cfg.ConnConfig.Copy())
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+channel); err == nil {
				retry = 100 * time.Millisecond
				// What committed while no one listened is found by the
				// waiters' next reading of the clock.
				l.broadcast()
				for {
					if _, err = conn.WaitForNotification(ctx); err != nil {
						break
					}
					l.broadcast()
				}
			}
			conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(retry):
			retry = min(2*retry, 5*time.Second)
		}
	}
}
