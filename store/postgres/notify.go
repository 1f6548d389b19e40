package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The change signal. Every write ticks (tick() in the schema), which
// sends NOTIFY on the channel "arbiter <schema>" with its epoch:
// PostgreSQL delivers it when the writing transaction commits, and never
// for one that rolls back, whoever wrote (arbiter or another program that
// follows the field format). A Store that is asked to wait for changes
// listens on a connection of its own and wakes its waiters at each
// notification; a slow poll (backstop) covers a notification lost with a
// broken connection, and while the listening connection is being made
// again.
//
// The change number (Changed) is the transaction id of the newest tick
// below the oldest write of the field still running (tail_horizon): writes commit in parallel,
// so a newer tick may commit before an older one, and a number taken
// from all committed ticks could stay the same across the older one's
// commit. Below that horizon nothing more can appear, so the number grows
// with every commit once the writes before it have ended, and never
// misses one. A write of the
// field left open holds the number back (not over
// idle_in_transaction_session_timeout, 60 s, for arbiter's own).

// backstop is how often a waiter reads the change number when nothing
// woke it.
const backstop = 3 * time.Second

// Behind a connection pooler in transaction pooling mode, LISTEN would
// land on whichever server connection the pooler lends and be lost with
// it. So the field listens on the direct connection listen_db names
// (Options.ListenDB), and without one it reads the change number every
// pollPooled instead, and says so (Polling).
const pollPooled = 2 * time.Second

// Polling says, when the field cannot be told of changes, that it reads
// the change number every 2 s instead and why; "" when it is told.
func (s *Store) Polling() string {
	if s.changes == nil {
		return ""
	}
	return s.changes.polling()
}

// Changed is the field's change number (see above): it changes with
// every commit, by anyone.
func (s *Store) Changed(ctx context.Context) (int64, error) {
	var e int64
	if err := s.queryRow(ctx, changedSQL).Scan(&e); err != nil {
		return 0, s.translate("WATCH", err)
	}
	return e, nil
}

// changedSQL reads the change number in a snapshot taken after its
// horizon (change_number in the schema), so that it moves with every
// commit made before it was asked, the asker's own among them.
const changedSQL = `SELECT change_number()`

// WaitChange returns the field's change number once it differs from since: at
// once if it already does, else when another commit's notification
// arrives (or the backstop finds it moved), or with ctx's error.
func (s *Store) WaitChange(ctx context.Context, since int64) (int64, error) {
	s.changes.start()
	for {
		every := backstop
		if s.changes.polling() != "" {
			every = pollPooled
		}
		wake := s.changes.next()
		v, err := s.Changed(ctx)
		if err != nil || v != since {
			return v, err
		}
		timer := time.NewTimer(every)
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
	s *Store
	// cfg is the connection to listen on; nil behind a pooler without
	// listen_db, where the waiters poll (why says so).
	cfg     *pgx.ConnConfig
	why     string
	mu      sync.Mutex
	wake    chan struct{} // closed at the next notification
	started bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// newListener prepares the change signal of s: on its own connection,
// on listen (a direct connection to the same server) if it is not "",
// or, behind a pooler without one, none.
func newListener(s *Store, listen string) (*listener, error) {
	l := &listener{s: s, wake: make(chan struct{})}
	switch {
	case listen != "":
		cfg, err := pgx.ParseConfig(strings.TrimSpace(listen))
		if err != nil {
			return nil, s.openError("has a listen_db that is not a connection string arbiter can read", nil)
		}
		if cfg.ConnectTimeout == 0 {
			cfg.ConnectTimeout = 10 * time.Second
		}
		// LISTEN needs no schema, and nothing a pooler would refuse.
		delete(cfg.RuntimeParams, "search_path")
		if searchPathOption(cfg.RuntimeParams["options"]) != "" {
			delete(cfg.RuntimeParams, "options")
		}
		l.cfg = cfg
	case s.pooled:
		l.why = "behind a connection pooler without listen_db, changes are read every 2 s"
	default:
		l.cfg = s.cfg.ConnConfig
	}
	return l, nil
}

// polling is why the waiters poll, "" when they are woken.
func (l *listener) polling() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.why
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
	if l.started || l.cfg == nil {
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
		conn, err := pgx.ConnectConfig(ctx, l.cfg.Copy())
		if refusedStartup(err) {
			l.pooled()
			return
		}
		if err == nil && l.cfg != l.s.cfg.ConnConfig {
			if err = l.direct(ctx, conn); errors.Is(err, errPooledListen) {
				conn.Close(context.Background())
				return
			}
		}
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+channel); err == nil {
				retry = 100 * time.Millisecond
				// What committed while no one listened is found by the
				// waiters' next reading of the change number.
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

// direct makes sure listen_db's connection reaches the server itself: a
// LISTEN through a pooler would not last, so the waiters poll instead,
// and say why.
func (l *listener) direct(ctx context.Context, conn *pgx.Conn) error {
	var pid uint32
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`, pgx.QueryExecModeSimpleProtocol).Scan(&pid); err != nil {
		return err
	}
	if pid != conn.PgConn().PID() {
		l.pooled()
		return errPooledListen
	}
	return nil
}

// pooled gives up listening on a listen_db that goes through a pooler.
func (l *listener) pooled() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.why = "listen_db goes through a connection pooler too, so changes are read every 2 s"
}

var errPooledListen = errors.New("listen_db goes through a connection pooler")
