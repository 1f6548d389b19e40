package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"arbiter/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// How a write holds what it reads, and why.
//
// A write transaction runs at READ COMMITTED and takes row locks, not
// SERIALIZABLE with retries. Every write ticks the Lamport clock, one row
// that every writer updates: under SERIALIZABLE, any two writes that
// overlap in time would conflict on it and all but one fail, so writers
// would retry each other to a standstill. Row locks give the SQLite
// engine's semantics with two points of serialisation instead of one
// lock on the whole field:
//
//   - Until it holds the clock, a write reads each conflict and unit it
//     looks up with SELECT … FOR NO KEY UPDATE: no other write can change
//     them until it commits, so the decision it takes on them stays true
//     (two deciders of one conflict: the second waits, then reads the
//     conflict the first wrote, and is refused). Writes about other
//     conflicts and units go on at the same time.
//   - Tick (or Witness) updates the clock row, which it then holds until
//     commit: epochs, notification and event ids are given in commit
//     order, so "epoch > last seen" and "id > last seen" never skip a
//     commit. Once a write holds the clock no other write can commit, so
//     it reads without locks; the rows it writes after the tick are the
//     ones only one writer at a time writes (the counts per status).
//     Review reads first and ticks last, so the clock is held only for
//     a decision's writes and its commit.
//   - Creating an id from the largest sequence number, and any write
//     before a tick, take the clock first.
//
// A lock is waited for up to the busy timeout (lock_timeout), then the
// write fails with FIELD_BUSY. A deadlock (two writes locking the same
// units in opposite orders) or a serialization failure (a foreign
// program's SERIALIZABLE transaction) is retried, up to maxAttempts
// times, then FIELD_BUSY too. Reads run in REPEATABLE READ READ ONLY
// transactions: one snapshot, no locks, never refused.
const maxAttempts = 4

// Tx is one transaction on the field.
type Tx struct {
	ctx   context.Context
	conn  *pgx.Conn
	s     *Store
	write bool
	// clock is whether the transaction holds the clock row.
	clock bool
	// actor is the agent ActAs named; sent is whether the server knows.
	actor string
	sent  bool
	// begun is whether BEGIN was sent: it goes with the transaction's
	// first statement, in one round trip (prelude).
	begun bool
}

// Write runs fn in a write transaction (see above); fn's error rolls it
// back.
func (s *Store) Write(ctx context.Context, fn func(store.Tx) error) error {
	if s.readOnly {
		return store.ReadOnlyError(s.opt, "")
	}
	return s.run(ctx, true, fn)
}

// Read runs fn in a read transaction: one consistent snapshot.
func (s *Store) Read(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, false, fn)
}

func (s *Store) run(ctx context.Context, write bool, fn func(store.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.attempt(ctx, write, fn)
		if err == nil {
			return nil
		}
		if retryable(err) && attempt < maxAttempts && ctx.Err() == nil {
			// A little random wait, growing, so that the two sides of a
			// deadlock do not meet again at once.
			wait := time.Duration(attempt) * (5*time.Millisecond + rand.N(10*time.Millisecond))
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			continue
		}
		return s.translate("WRITE", err)
	}
}

func (s *Store) attempt(ctx context.Context, write bool, fn func(store.Tx) error) (err error) {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer pc.Release()
	conn := pc.Conn()
	t := &Tx{ctx: ctx, conn: conn, s: s, write: write}
	done := false
	defer func() {
		if !done && t.begun {
			rollback(pc, ctx)
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	done = true
	if !t.begun {
		return nil // fn asked nothing of the server
	}
	tag, err := conn.Exec(ctx, "COMMIT")
	if err != nil {
		return err
	}
	if tag.String() != "COMMIT" {
		return errors.New("the transaction was rolled back by the server")
	}
	return nil
}

// rollback ends a failed transaction; a connection that cannot is not
// given back to the pool.
func rollback(pc *pgxpool.Conn, ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := pc.Conn().Exec(ctx, "ROLLBACK"); err != nil {
		pc.Conn().Close(ctx)
	}
}

// retryable reports whether a failed transaction may be run again: a
// deadlock, a serialization failure, or a connection that failed before
// anything was sent (a server restarted under a pooled connection).
func retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40P01" || pe.Code == "40001"
	}
	return pgconn.SafeToRetry(err)
}

// The statements of a transaction. The first one goes in one round trip
// with BEGIN, and with the acting agent's name when the transaction
// writes (prelude); then the agent is told before the first statement
// after ActAs, if it had not been.

func (t *Tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	if br, err := t.prelude(sql, args); err != nil {
		return pgconn.CommandTag{}, err
	} else if br != nil {
		tag, err := br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return tag, err
	}
	if err := t.sendActor(); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.conn.Exec(t.ctx, sql, args...)
}

func (t *Tx) query(sql string, args ...any) (pgx.Rows, error) {
	if br, err := t.prelude(sql, args); err != nil {
		return nil, err
	} else if br != nil {
		rows, err := br.Query()
		if err != nil {
			br.Close()
			return nil, err
		}
		return batchRows{Rows: rows, br: br}, nil
	}
	if err := t.sendActor(); err != nil {
		return nil, err
	}
	return t.conn.Query(t.ctx, sql, args...)
}

func (t *Tx) row(sql string, args ...any) pgx.Row {
	rows, err := t.query(sql, args...)
	if err != nil {
		return errRow{err}
	}
	return firstRow{rows}
}

// prelude sends BEGIN (and the acting agent) with the transaction's first
// statement, and returns the batch to read the statement's results from;
// nil once the transaction has begun.
func (t *Tx) prelude(sql string, args []any) (pgx.BatchResults, error) {
	if t.begun {
		return nil, nil
	}
	t.begun = true
	b := &pgx.Batch{}
	if t.write {
		b.Queue("BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE")
		if t.actor != "" {
			b.Queue(`SELECT set_config('arbiter.agent', $1, true)`, t.actor)
			t.sent = true
		}
	} else {
		b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	}
	b.Queue(sql, args...)
	br := t.conn.SendBatch(t.ctx, b)
	for range len(b.QueuedQueries) - 1 {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, err
		}
	}
	return br, nil
}

// batchRows are the rows of a prelude's statement: closing them closes
// the batch.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

// firstRow is QueryRow over rows: the first row, ErrNoRows if none.
type firstRow struct{ rows pgx.Rows }

func (r firstRow) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

// errRow is a row that could not be asked for.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// ActAs names the agent the transaction acts for: the field checks, at
// each statement that writes, that the session's role may act as it.
func (t *Tx) ActAs(agentID string) error {
	if t.actor != agentID {
		t.actor, t.sent = agentID, false
	}
	return nil
}

// sendActor tells the server who acts, once, before the first write.
func (t *Tx) sendActor() error {
	if !t.write || t.sent || t.actor == "" || !t.begun {
		return nil
	}
	if _, err := t.conn.Exec(t.ctx, `SELECT set_config('arbiter.agent', $1, true)`, t.actor); err != nil {
		return err
	}
	t.sent = true
	return nil
}

// holdClock takes the clock row, if the transaction does not hold it
// yet: from then on no other write commits before this one.
func (t *Tx) holdClock() error {
	if !t.write || t.clock {
		return nil
	}
	if _, err := t.exec(`SELECT epoch FROM clock WHERE id = 1 FOR UPDATE`); err != nil {
		return err
	}
	t.clock = true
	return nil
}

// lock is the locking clause of a write's lookup of one row, while it
// does not hold the clock (see the comment at the top).
func (t *Tx) lock() string {
	if t.write && !t.clock {
		return ` FOR NO KEY UPDATE`
	}
	return ``
}

// Epoch is the field's Lamport clock now.
func (t *Tx) Epoch() (int64, error) {
	var e int64
	err := t.row(`SELECT epoch FROM clock WHERE id = 1`).Scan(&e)
	return e, err
}

// Tick advances the clock by one and returns the new epoch; the
// transaction holds the clock until it ends.
func (t *Tx) Tick() (int64, error) {
	var e int64
	if err := t.row(`UPDATE clock SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch`).Scan(&e); err != nil {
		return 0, err
	}
	t.clock = true
	return e, nil
}

// Witness applies the Lamport receive rule: the clock becomes
// max(local, received) + 1.
func (t *Tx) Witness(received int64) (int64, error) {
	var e int64
	if err := t.row(`UPDATE clock SET epoch = greatest(epoch, $1) + 1 WHERE id = 1 RETURNING epoch`, received).Scan(&e); err != nil {
		return 0, err
	}
	t.clock = true
	return e, nil
}

// nextSeq is the next sequence number of a table keyed by seq; the
// transaction holds the clock, so no other write takes the same.
func (t *Tx) nextSeq(table string) (int64, error) {
	if err := t.holdClock(); err != nil {
		return 0, err
	}
	var seq int64
	err := t.row(`SELECT coalesce(max(seq), 0) + 1 FROM ` + table).Scan(&seq)
	return seq, err
}

func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

func formatID(prefix string, seq int64) string { return fmt.Sprintf("%s-%03d", prefix, seq) }
