package mcpserver

import (
	"context"
	"time"

	"arbiter/model"
	"arbiter/service/review"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// changes tells when the field may have changed.
type changes interface {
	// Next returns once the field may have changed since the previous
	// call (or since the changes began), or with ctx's error when it ends.
	// Other errors are transient: the caller may call Next again.
	Next(ctx context.Context) error
}

// waiter is changes through review.Service.WaitChange: pushed by
// PostgreSQL's LISTEN/NOTIFY when the field is on a server, polled every
// `every` (SQLite's data_version) when it is a file.
type waiter struct {
	svc   *review.Service
	every time.Duration
	seen  int64
}

func newWaiter(ctx context.Context, svc *review.Service, every time.Duration) (*waiter, error) {
	v, err := svc.Changed(ctx)
	if err != nil {
		return nil, err
	}
	return &waiter{svc: svc, every: every, seen: v}, nil
}

func (w *waiter) Next(ctx context.Context) error {
	v, err := w.svc.WaitChange(ctx, w.seen, w.every)
	if err != nil {
		return err
	}
	w.seen = v
	return nil
}

// watch waits for changes to the field until ctx ends, and announces the
// resources that really changed: the inbox when a notification for the
// agent arrived, and each subscribed conflict whose contents differ.
func (s *Server) watch(ctx context.Context) {
	announced := s.inbox.lastSeen()
	failing := false
	for {
		err := s.changes.Next(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = s.announce(ctx, &announced)
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil && !failing:
			s.notice("watching the field: %v (still trying)", err)
			failing = true
		case err == nil && failing:
			s.notice("watching the field again")
			failing = false
		}
	}
}

// announce sends resources/updated for what changed since the last call.
func (s *Server) announce(ctx context.Context, announced *int64) error {
	last, err := s.inbox.refresh(ctx)
	if err != nil {
		return err
	}
	// The last notification read, not the largest id: on PostgreSQL ids
	// do not follow the order the outbox is read in.
	if last != *announced {
		*announced = last
		s.updated(ctx, InboxURI)
	}
	for uri, id := range s.subs.watched() {
		d, err := s.detail(ctx, id)
		if err != nil {
			return err
		}
		stamp, err := stampOf(d)
		if err != nil {
			return err
		}
		if s.subs.changed(uri, stamp) {
			s.updated(ctx, uri)
		}
	}
	return nil
}

func (s *Server) updated(ctx context.Context, uri string) {
	if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil && ctx.Err() == nil {
		s.notice("telling the client %s changed: %v", uri, err)
	}
}

// sweep does what the field's deadlines ask for (review.Service.Sweep)
// every opts.Sweep until ctx ends, so that an escalation served to agents
// never waits past its deadline for someone to open arbiter. A read-only
// field is not swept; a failing sweep is a notice, and the next one tries
// again.
func (s *Server) sweep(ctx context.Context) {
	if ro, _ := s.svc.ReadOnly(); ro || s.opts.Sweep < 0 {
		return
	}
	if _, offline := s.svc.Offline(); offline {
		return
	}
	t := time.NewTicker(s.opts.Sweep)
	defer t.Stop()
	for {
		_, err := s.svc.Sweep(ctx)
		switch {
		case model.HasCode(err, model.CodeNotPermitted):
			return // the field takes deadlines from operators' sessions only
		case err != nil && ctx.Err() == nil:
			s.notice("sweeping the field's deadlines: %v (trying again)", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
