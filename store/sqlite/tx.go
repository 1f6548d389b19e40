package sqlite

import (
	"arbiter/store"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Tx is one transaction on the field. All reads and writes of a decision
// go through the same Tx, so a decision is all or nothing.
type Tx struct {
	ctx context.Context
	tx  *sql.Tx
	s   *Store
}

// Write runs fn in a BEGIN IMMEDIATE transaction: it takes the field's
// write lock first (waiting up to the busy timeout), so what fn reads
// cannot change before it commits. fn's error rolls everything back.
func (s *Store) Write(ctx context.Context, fn func(store.Tx) error) error {
	if s.readOnly {
		return s.refuseWrite()
	}
	return s.run(ctx, false, fn)
}

// Read runs fn in a read transaction: a consistent snapshot of the field.
func (s *Store) Read(ctx context.Context, fn func(store.Tx) error) error {
	return s.run(ctx, true, fn)
}

func (s *Store) run(ctx context.Context, readOnly bool, fn func(store.Tx) error) (err error) {
	if !s.running.enter() {
		return errClosed
	}
	defer s.running.leave()
	var sqlTx *sql.Tx
	var line *turn
	if readOnly {
		sqlTx, err = s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	} else {
		// Take turns with the other writers (queue.go), then take
		// SQLite's lock (lockwait.go), both within the busy timeout.
		deadline := time.Now().Add(s.busy)
		if line, err = s.queue.wait(ctx, deadline); err != nil {
			return busy("BEGIN", err)
		}
		defer line.release()
		var conn *sql.Conn
		conn, sqlTx, err = s.beginWrite(ctx, deadline)
		if conn != nil {
			defer conn.Close()
		}
		// Holding the write lock: is the field still where it was opened?
		if gone := s.present("WRITE"); gone != nil {
			if err == nil {
				sqlTx.Rollback()
			}
			return gone
		}
	}
	if err != nil {
		return translate("BEGIN", err)
	}
	defer func() {
		if p := recover(); p != nil {
			sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(&Tx{ctx: ctx, tx: sqlTx, s: s}); err != nil {
		sqlTx.Rollback()
		line.release()
		return translate("WRITE", err)
	}
	err = sqlTx.Commit()
	line.release() // the next writer's turn, while this one tidies up
	if err != nil {
		return translate("COMMIT", err)
	}
	if !readOnly {
		s.wrote(ctx)
	}
	return nil
}

// Changed is SQLite's data_version: it changes whenever another
// connection (another process, or another of ours) commits to the field,
// a cheap way to notice live writers.
func (s *Store) Changed(ctx context.Context) (int64, error) {
	var v int64
	err := s.watch.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, translate("WATCH", err)
}

// IntegrityCheck runs SQLite's own check and returns its findings ("ok"
// when the file is sound).
func (s *Store) IntegrityCheck(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, translate("CHECK", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	if st := t.prepared(query); st != nil {
		return st.ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *Tx) query(query string, args ...any) (*sql.Rows, error) {
	if st := t.prepared(query); st != nil {
		return st.QueryContext(t.ctx, args...)
	}
	return t.tx.QueryContext(t.ctx, query, args...)
}

func (t *Tx) row(query string, args ...any) *sql.Row {
	if st := t.prepared(query); st != nil {
		return st.QueryRowContext(t.ctx, args...)
	}
	return t.tx.QueryRowContext(t.ctx, query, args...)
}

// Epoch is the field's Lamport clock now.
func (t *Tx) Epoch() (int64, error) {
	var e int64
	err := t.row("SELECT epoch FROM clock WHERE id = 1").Scan(&e)
	return e, err
}

// EpochTick advances the clock by one and returns the new epoch. Every write
// ticks once.
func (t *Tx) EpochTick() (int64, error) {
	var e int64
	err := t.row("UPDATE clock SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch").Scan(&e)
	return e, err
}

// EpochWitness applies the Lamport receive rule for an epoch seen in a message:
// the clock becomes max(local, received) + 1.
func (t *Tx) EpochWitness(received int64) (int64, error) {
	var e int64
	err := t.row("UPDATE clock SET epoch = max(epoch, ?) + 1 WHERE id = 1 RETURNING epoch", received).Scan(&e)
	return e, err
}

// timeText is how times are stored: UTC, RFC 3339 with nanoseconds, so
// text order is time order.
const timeText = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeText) }

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func nullTime(s sql.NullString) time.Time {
	if !s.Valid {
		return time.Time{}
	}
	return parseTime(s.String)
}

func strPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

func nullable(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// nextID returns the next "<prefix>-NNN" id of a table keyed by seq.
func (t *Tx) nextID(table, prefix string) (int64, string, error) {
	var seq int64
	if err := t.row(nextIDSQL(table)).Scan(&seq); err != nil {
		return 0, "", err
	}
	return seq, fmt.Sprintf("%s-%03d", prefix, seq), nil
}

func nextIDSQL(table string) string {
	return fmt.Sprintf("SELECT coalesce(max(seq), 0) + 1 FROM %s", table)
}
