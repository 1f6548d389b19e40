package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"arbiter/store"
	"arbiter/store/sqlcore"
)

// Tx is one transaction on the field. All reads and writes of a decision
// go through the same Tx, so a decision is all or nothing.
type Tx struct {
	sqlcore.Tx
	ctx context.Context
	tx  *sql.Tx
	s   *Store
}

func newTx(ctx context.Context, tx *sql.Tx, s *Store) *Tx {
	t := &Tx{ctx: ctx, tx: tx, s: s}
	t.Tx = sqlcore.Tx{E: engine{t}, D: dialect}
	return t
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
// ReadTail is Read: a file's writes commit one at a time, in the order of
// their ids, so a snapshot holds every tail whole.
func (s *Store) ReadTail(ctx context.Context, fn func(store.Tx) error) error { return s.Read(ctx, fn) }

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
	op := "READ"
	if readOnly {
		sqlTx, err = s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	} else {
		op = "WRITE"
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
	}
	// Holding its connection (a write, the write lock too): is the field
	// still where it was opened? (present.go)
	if gone := s.present(op); gone != nil {
		if err == nil {
			sqlTx.Rollback()
		}
		return gone
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
	if err := fn(newTx(ctx, sqlTx, s)); err != nil {
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
	if gone := s.present("WATCH"); gone != nil {
		return 0, gone
	}
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

// engine is a transaction as the shared statements use it
// (sqlcore.Engine).
type engine struct{ t *Tx }

func (e engine) Exec(query string, args ...any) (int64, error) {
	res, err := e.t.exec(query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e engine) Query(query string, args ...any) (sqlcore.Rows, error) {
	rows, err := e.t.query(query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

// Later runs the write at once: a SQLite write holds the whole file, so
// nothing is gained by waiting.
func (e engine) Later(query string, args []any, check func(int64) error) error {
	n, err := e.Exec(query, args...)
	if err == nil && check != nil {
		err = check(n)
	}
	return err
}

// Seq is one more than the largest sequence number of table: the rowid
// SQLite would give the next row.
func (e engine) Seq(table string) (int64, error) {
	var seq int64
	err := e.t.row(nextIDSQL(table)).Scan(&seq)
	return seq, err
}

// Lock is "": a write holds the whole file from its start.
func (engine) Lock() string { return "" }

// sqlRows are database/sql's rows as the shared statements read them.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	args = bind(args)
	if st := t.prepared(query); st != nil {
		return st.ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *Tx) query(query string, args ...any) (*sql.Rows, error) {
	args = bind(args)
	if st := t.prepared(query); st != nil {
		return st.QueryContext(t.ctx, args...)
	}
	return t.tx.QueryContext(t.ctx, query, args...)
}

func (t *Tx) row(query string, args ...any) *sql.Row {
	args = bind(args)
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
	err := t.row("UPDATE clock SET epoch = max(epoch, $1) + 1 WHERE id = 1 RETURNING epoch", received).Scan(&e)
	return e, err
}

func nextIDSQL(table string) string {
	return fmt.Sprintf("SELECT coalesce(max(seq), 0) + 1 FROM %s", table)
}
