package mcpserver

import (
	"context"
	"time"

	"arbiter/review"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// changes tells when the field may have changed. It is the one place that
// knows how: today by polling SQLite's data_version; a push signal (such
// as PostgreSQL's LISTEN/NOTIFY) can take its place without touching the
// watcher.
type changes interface {
	// Next returns once the field may have changed since the previous
	// call (or since the changes began), or with ctx's error when it ends.
	// Other errors are transient: the caller may call Next again.
	Next(ctx context.Context) error
}

// poller is changes by polling review.Service.Changed.
type poller struct {
	svc   *review.Service
	every time.Duration
	seen  int64
}

func newPoller(ctx context.Context, svc *review.Service, every time.Duration) (*poller, error) {
	v, err := svc.Changed(ctx)
	if err != nil {
		return nil, err
	}
	return &poller{svc: svc, every: every, seen: v}, nil
}

func (p *poller) Next(ctx context.Context) error {
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		v, err := p.svc.Changed(ctx)
		if err != nil {
			return err
		}
		if v != p.seen {
			p.seen = v
			return nil
		}
	}
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
	if last > *announced {
		*announced = last
		s.updated(ctx, InboxURI)
	}
	for uri, id := range s.subs.watched() {
		d, err := s.svc.Detail(ctx, id)
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
		if _, err := s.svc.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.notice("sweeping the field's deadlines: %v (trying again)", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
