package review

import (
	"context"
	"time"

	"arbiter/store"
)

// ChangeWaiter is a Desk that can wait for the next change itself.
type ChangeWaiter interface {
	WaitChange(ctx context.Context, since int64, poll time.Duration) (int64, error)
}

var _ ChangeWaiter = (*Service)(nil)

// Poller is a Desk that can say it learns of others' changes only by
// asking, every little while (a field on a server behind a connection
// pooler, without listen_db).
type Poller interface {
	Polling() string
}

var _ Poller = (*Service)(nil)

// Polling says, when the field cannot be told of changes where it is
// open and is read every 2 s instead, so and why; "" when it is told.
func (s *Service) Polling() string {
	if p, ok := s.st.(store.Polled); ok {
		return p.Polling()
	}
	return ""
}

// WaitChange returns once the field's change number (Changed) differs
// from since, with the new number: at once if it already does, or with
// ctx's error. A field that announces its changes (PostgreSQL, through
// LISTEN/NOTIFY) wakes it as soon as another process's write commits,
// without polling; on a SQLite file it asks Changed every poll.
func (s *Service) WaitChange(ctx context.Context, since int64, poll time.Duration) (int64, error) {
	if n, ok := s.st.(store.Notifier); ok {
		return n.WaitChange(ctx, since)
	}
	return pollChange(ctx, s, since, poll)
}

// WaitChange is Service.WaitChange for any desk: one that can wait
// (ChangeWaiter) waits; another is asked Changed every poll.
func WaitChange(ctx context.Context, d Desk, since int64, poll time.Duration) (int64, error) {
	if w, ok := d.(ChangeWaiter); ok {
		return w.WaitChange(ctx, since, poll)
	}
	return pollChange(ctx, d, since, poll)
}

func pollChange(ctx context.Context, d interface {
	Changed(context.Context) (int64, error)
}, since int64, poll time.Duration) (int64, error) {
	if poll <= 0 {
		poll = time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		v, err := d.Changed(ctx)
		if err != nil || v != since {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-t.C:
		}
	}
}
