package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"time"

	"arbiter/internal/sqlitefail"

	sqlite3 "modernc.org/sqlite/lib"
)

// lockPoll is how long a write waits, on average, between two attempts
// to take the field's write lock.
//
// SQLite's own busy handler sleeps between attempts: 1, 2, 5, 10 … ms,
// then 100 ms at a time. A process that commits and begins its next write
// at once, as a busy agent does, takes the lock back within microseconds,
// so a waiter that looks every 100 ms rarely finds it free: beside two
// such writers, a decision waited up to 5 s, the whole busy timeout, and
// sometimes longer (reliability tests). Writes therefore look every
// millisecond or so, until the busy timeout; reads keep SQLite's handler
// (in WAL mode they do not wait for writers).
const lockPoll = time.Millisecond

// beginWrite begins a write transaction (BEGIN IMMEDIATE) on a connection
// of its own, polling for the write lock every lockPoll until deadline
// (the write's busy timeout). The connection goes back to the pool, with
// its busy timeout as it was, when conn is closed. Writes of arbiter's
// own reach it in turn (queue.go): mostly the lock is free at once, and
// the polling waits out writers that do not queue.
func (s *Store) beginWrite(ctx context.Context, deadline time.Time) (*sql.Conn, *sql.Tx, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	var ms int64
	if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&ms); err != nil {
		conn.Close()
		return nil, nil, err
	}
	restore := fmt.Sprintf("PRAGMA busy_timeout = %d", ms)
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		conn.Close()
		return nil, nil, err
	}
	for {
		tx, err := conn.BeginTx(ctx, nil)
		if err == nil {
			if _, err = tx.ExecContext(ctx, restore); err == nil {
				return conn, tx, nil
			}
			tx.Rollback()
		}
		if err == nil || sqlitefail.Code(err) != sqlite3.SQLITE_BUSY || !time.Now().Before(deadline) {
			conn.ExecContext(context.WithoutCancel(ctx), restore)
			conn.Close()
			return nil, nil, err
		}
		wait := time.NewTimer(lockPoll/2 + rand.N(lockPoll))
		select {
		case <-ctx.Done():
			wait.Stop()
			conn.ExecContext(context.WithoutCancel(ctx), restore)
			conn.Close()
			return nil, nil, ctx.Err()
		case <-wait.C:
		}
	}
}
