package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"arbiter/store"
	"arbiter/store/sqlcore"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// How writes commit in parallel, and why they stay right.
//
// A write transaction runs at REPEATABLE READ and locks the rows it
// decides on; nothing else is shared. Writes about different conflicts
// and units commit at the same time; two writes of one row wait for each
// other, and the later one starts again (below).
//
//   - A write's snapshot is taken at its first statement, and everything
//     it reads comes from it. Its epoch (EpochTick, EpochWitness: tick()
//     in the schema) is one more than the largest epoch of the writes
//     that snapshot holds: a write that read another's result has a
//     larger epoch; writes that saw nothing of each other may share one.
//     Each tick leaves a row in ticks, which commits or rolls back with
//     the write: the field's epoch (Epoch) is the largest committed.
//   - A write reads each conflict and unit it looks up with SELECT … FOR
//     NO KEY UPDATE: no other write changes them until it commits, so the
//     decision it takes on them holds. A row another write changed and
//     committed after the snapshot cannot be locked (serialization
//     failure): the write starts again with a new snapshot, and then sees
//     it (two deciders of one conflict: the second, run again, reads the
//     conflict the first decided, and is refused).
//   - Sequence numbers and ids come from sequences: unique, growing, with
//     gaps where a write that took one rolled back. They follow no commit
//     order; readers that tail the log or an outbox read below the oldest
//     transaction still running, in (xid, id) order (log.go), and the
//     change number is the newest tick below it (notify.go).
//   - The counts per status are rows each write adds, not rows every
//     write updates.
//
// A lock is waited for up to the busy timeout (lock_timeout), then the
// write fails with FIELD_BUSY. A deadlock (two writes locking the same
// units in opposite orders) or a serialization failure is retried, up to
// maxAttempts times, then FIELD_BUSY too. Reads run in REPEATABLE READ
// READ ONLY transactions: one snapshot, no locks, never refused.
const maxAttempts = 8

// Tx is one transaction on the field.
type Tx struct {
	sqlcore.Tx
	ctx   context.Context
	conn  *pgx.Conn
	s     *Store
	write bool
	// epoch is the last epoch the transaction ticked, 0 if none.
	epoch int64
	// event is an event id taken with the tick, for the event that
	// nearly every write that ticks appends (0: none taken); notes are
	// notification ids taken and not used yet.
	event int64
	notes []int64
	// actor is the agent AgentActAs named; sent is whether the server knows.
	actor string
	sent  bool
	// begun is whether BEGIN was sent: it goes with the transaction's
	// first statement, in one round trip (send).
	begun bool
	// pending are the writes waiting to go with the next statement.
	pending []deferred
	// locked are the conflicts whose rows the transaction locked, and
	// the version each is at now.
	locked map[string]int64
	// horizon is the tail's horizon reckoned before the snapshot
	// (ReadTail), "" when none was.
	horizon string
}

// below is the horizon a tail read of the transaction reads below: the
// one ReadTail reckoned, else tail_horizon() within the snapshot.
func (t *Tx) below(p string) string {
	if t.horizon != "" {
		return p + `::xid8`
	}
	return `(SELECT tail_horizon())`
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

// ReadTail runs fn in a read transaction whose tail reads use a horizon
// reckoned before its snapshot (tail_horizon_ahead, in a round trip of
// its own): only the field's writes running then hold it back, so a tail
// read after other statements is as whole as the first one. Within the
// snapshot alone, tail_horizon must also hold back at every transaction
// that ended while the snapshot was taken, any program's, and on a busy
// server that cuts the tail short of commits made before the read began.
func (s *Store) ReadTail(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, false, func(tx store.Tx) error {
		t := tx.(*Tx)
		rows, err := t.queryAhead(`SELECT tail_horizon_ahead()::text`)
		if err != nil {
			return err
		}
		defer rows.Close()
		if rows.Next() {
			err = rows.Scan(&t.horizon)
		}
		if rows.Close(); err == nil {
			err = rows.Err()
		}
		if err != nil {
			return err
		}
		return fn(t)
	})
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
	t.Tx = sqlcore.Tx{E: engine{t}, D: dialect}
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
	return t.commit()
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

// The statements of a transaction, and round trips.
//
// A decision is some twenty statements, and every round trip to the
// server while the transaction holds row locks holds up whoever waits
// for those rows, and the decider itself: on a server across a network,
// round trips bound how many decisions a decider makes a second. So a
// statement goes out together with what needs no answer of its own in
// one round trip (a pipeline, pgx's batch): BEGIN, begin_write and the
// acting agent with the first statement; and the writes whose outcome is
// known in advance — a unit's new status, a ballot, a notification or
// event (whose id was taken from its sequence), a conflict whose row it
// locked at the version it updates — wait for the next statement that
// needs an answer, or for COMMIT. A deferred write's failure is reported
// by the call that sent it, and fails the transaction as it would have
// at once.

// deferred is a statement sent with the next one; check reads its
// result.
type deferred struct {
	sql   string
	args  []any
	check func(pgx.BatchResults) error
}

// later defers a statement (see above).
func (t *Tx) later(sql string, args []any, check func(pgx.BatchResults) error) {
	if check == nil {
		check = func(br pgx.BatchResults) error { _, err := br.Exec(); return err }
	}
	t.pending = append(t.pending, deferred{sql, args, check})
}

// send sends what is waiting — BEGIN, the acting agent, deferred writes
// — with sql (if not ""), and returns the batch to read sql's results
// from; nil when nothing was waiting, for the caller to send sql alone.
func (t *Tx) send(sql string, args []any) (pgx.BatchResults, error) {
	actor := t.write && t.actor != "" && !t.sent
	if t.begun && !actor && len(t.pending) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	var checks []func(pgx.BatchResults) error
	if !t.begun {
		t.begun = true
		if t.write {
			b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ WRITE")
		} else {
			b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
		}
		checks = append(checks, nil)
		if t.s.pooled {
			// Behind a pooler, the session's settings (pooler.go).
			b.Queue(setLocalSQL, t.s.local...)
			checks = append(checks, nil)
		}
		if t.write {
			// Before anything gives it a transaction id (log.go).
			b.Queue(`SELECT begin_write()`)
			checks = append(checks, nil)
		}
	}
	if actor {
		b.Queue(`SELECT set_config('arbiter.agent', $1, true)`, t.actor)
		checks = append(checks, nil)
		t.sent = true
	}
	for _, d := range t.pending {
		b.Queue(d.sql, d.args...)
		checks = append(checks, d.check)
	}
	t.pending = nil
	if sql != "" {
		b.Queue(sql, args...)
	}
	br := t.conn.SendBatch(t.ctx, b)
	for _, check := range checks {
		var err error
		if check == nil {
			_, err = br.Exec()
		} else {
			err = check(br)
		}
		if err != nil {
			br.Close()
			return nil, err
		}
	}
	return br, nil
}

// flush sends what is waiting, on its own.
func (t *Tx) flush() error {
	br, err := t.send("", nil)
	if err != nil || br == nil {
		return err
	}
	return br.Close()
}

func (t *Tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	br, err := t.send(sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	if br == nil {
		return t.conn.Exec(t.ctx, sql, args...)
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (t *Tx) query(sql string, args ...any) (pgx.Rows, error) {
	br, err := t.send(sql, args)
	if err != nil {
		return nil, err
	}
	if br == nil {
		return t.conn.Query(t.ctx, sql, args...)
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{Rows: rows, br: br}, nil
}

// queryAhead runs sql before the transaction begins, and so before its
// snapshot: on its own, at the server's READ COMMITTED (behind a pooler
// with the field's settings, in an implicit transaction of its own).
// Nothing may have been sent yet.
func (t *Tx) queryAhead(sql string, args ...any) (pgx.Rows, error) {
	if !t.s.pooled {
		return t.conn.Query(t.ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(setLocalSQL, t.s.local...)
	b.Queue(sql, args...)
	br := t.conn.SendBatch(t.ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{Rows: rows, br: br}, nil
}

// row is the first row of sql's result; store.ErrNotFound when there is
// none.
func (t *Tx) row(sql string, args ...any) sqlcore.Row { return sqlcore.QueryRow(t.E, sql, args...) }

// commit sends what is waiting with COMMIT, in one round trip.
func (t *Tx) commit() error {
	if !t.begun && len(t.pending) == 0 {
		return nil // the transaction asked nothing of the server
	}
	tag, err := t.exec("COMMIT")
	if err != nil {
		return err
	}
	if tag.String() != "COMMIT" {
		return errors.New("the transaction was rolled back by the server")
	}
	return nil
}

// batchRows are the rows of a batch's last statement: closing them
// closes the batch.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

// AgentActAs names the agent the transaction acts for: the field checks, at
// each statement that writes, that the session's role may act as it.
func (t *Tx) AgentActAs(agentID string) error {
	if t.actor != agentID {
		t.actor, t.sent = agentID, false
	}
	return nil
}

// lock is the locking clause of a write's lookup of one row (see the
// comment at the top).
func (t *Tx) lock() string {
	if t.write {
		return ` FOR NO KEY UPDATE`
	}
	return ``
}

// Epoch is the field's Lamport clock now: the largest epoch of the writes
// the transaction sees, its own included.
func (t *Tx) Epoch() (int64, error) {
	var e int64
	err := t.row(`SELECT coalesce(max(epoch), 0) FROM ticks`).Scan(&e)
	return max(e, t.epoch), err
}

// EpochTick returns the write's next epoch: one more than the largest it
// has seen.
func (t *Tx) EpochTick() (int64, error) { return t.tick(0, true) }

// EpochWitness applies the Lamport receive rule: the clock becomes
// max(local, received) + 1.
func (t *Tx) EpochWitness(received int64) (int64, error) { return t.tick(received, false) }

// tick ticks; with event, it takes the id of the event the write will
// append in the same round trip (one that then appends none leaves a gap
// in the ids). An import or copy that receives epochs appends its events
// with ids of their own.
func (t *Tx) tick(received int64, event bool) (int64, error) {
	var e, id int64
	if err := t.row(`SELECT tick($1, $2), CASE WHEN $3 THEN next_number('events') ELSE 0 END`,
		t.epoch, received, event && t.event == 0).Scan(&e, &id); err != nil {
		return 0, err
	}
	t.epoch = e
	if id != 0 {
		t.event = id
	}
	if e%compactEvery == 0 {
		t.later(`SELECT compact()`, nil, nil)
	}
	return e, nil
}

// compactEvery is how many epochs go by between sums of the counts'
// rows (conflict_counts) and the dropping of old ticks, by the write
// that ticks a multiple of it (compact() in the schema).
const compactEvery = 256

// nextSeq gives the next sequence number of units or conflicts.
func (t *Tx) nextSeq(table string) (int64, error) {
	var n int64
	err := t.row(`SELECT next_number($1)`, table).Scan(&n)
	return n, err
}

// engine is a transaction as the shared statements use it
// (sqlcore.Engine).
type engine struct{ t *Tx }

func (e engine) Exec(sql string, args ...any) (int64, error) {
	tag, err := e.t.exec(sql, args...)
	return tag.RowsAffected(), err
}

func (e engine) Query(sql string, args ...any) (sqlcore.Rows, error) {
	rows, err := e.t.query(sql, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// Later defers the write to the transaction's next statement (see
// "round trips" above).
func (e engine) Later(sql string, args []any, check func(int64) error) error {
	e.t.later(sql, args, func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err == nil && check != nil {
			err = check(tag.RowsAffected())
		}
		return err
	})
	return nil
}

func (e engine) Seq(table string) (int64, error) { return e.t.nextSeq(table) }

func (e engine) Lock() string { return e.t.lock() }
