// Package sqlcore is what the two engines of a field share: the column
// lists, the row decoders and the statements both speak, each written
// once, and the methods of store.Tx whose SQL is the same on both.
//
// A statement is written once, with PostgreSQL's numbered placeholders
// ($1, $2, …, a number again where an argument is used twice): SQLite
// binds $NNN to the NNNth argument as well (modernc.org/sqlite), so the
// same text runs on both engines and each keeps its own statement cache
// (SQLite's prepared statements, pgx's). Where the engines' words differ
// — a JSON aggregate, a row lock, a duration — the engine says its words
// once (Dialect) and the statements are built from them when the engine's
// package starts.
//
// An engine's transaction embeds Tx and gives it the few things only it
// knows how to do (Engine): run a statement, run a write whose outcome is
// known in advance (PostgreSQL sends those with the next statement), take
// a sequence number, lock a row it reads. A method an engine does its own
// way (a word search, a conflict locked through a function of the
// schema, an outbox read below the oldest running write) is the engine's
// own, and shadows the one here.
//
// Times: SQLite keeps them as text (TimeText), PostgreSQL as timestamptz.
// The decoders read either into Time; the statements take time.Time
// arguments, which the SQLite engine writes as its text.
package sqlcore

import (
	"fmt"
	"strings"

	"arbiter/store"
)

// Engine is what an engine's transaction gives the shared methods.
type Engine interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(query string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(query string, args ...any) (Rows, error)
	// Later runs a write whose outcome is known in advance: at once
	// (SQLite), or with the transaction's next statement (PostgreSQL,
	// where its error then fails that statement). check, when not nil,
	// is given how many rows it changed and says whether that is a
	// failure.
	Later(query string, args []any, check func(changed int64) error) error
	// Seq takes the next sequence number of table ("units", "conflicts").
	Seq(table string) (int64, error)
	// Lock is the clause a lookup of one row ends with so that the row
	// holds until the transaction ends ("" where a write holds the whole
	// field, or in a read).
	Lock() string
}

// Row is one row of a result, or the only one.
type Row interface {
	Scan(dest ...any) error
}

// Rows are a statement's rows: database/sql's (through a little adapter)
// and pgx's.
type Rows interface {
	Row
	Next() bool
	Err() error
	Close()
}

// Tx is the shared part of a transaction on a field: store.Tx's methods
// whose statements are the same on both engines. E is the engine's
// transaction, D its words.
type Tx struct {
	E Engine
	D *Dialect
}

// QueryRow is the first row of query's result; its Scan returns
// store.ErrNotFound when there is none.
func QueryRow(e Engine, query string, args ...any) Row {
	return FirstRow(e.Query(query, args...))
}

// FirstRow is the first of rows, as QueryRow answers; err's when rows
// could not be had.
func FirstRow(rows Rows, err error) Row {
	if err != nil {
		return errRow{err}
	}
	return firstRow{rows}
}

type firstRow struct{ rows Rows }

func (r firstRow) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return store.ErrNotFound
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// Each runs query and calls fn with each of its rows, in order; fn's
// error stops it.
func Each(e Engine, query string, args []any, fn func(Row) error) error {
	rows, err := e.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Collect is the values decode reads from each row of query, [] when
// there is none.
func Collect[T any](e Engine, query string, args []any, decode func(Row) (T, error)) ([]T, error) {
	out := []T{}
	err := Each(e, query, args, func(r Row) error {
		v, err := decode(r)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachOf calls fn with the value decode reads from each row of query.
func EachOf[T any](e Engine, query string, args []any, decode func(Row) (T, error), fn func(T) error) error {
	return Each(e, query, args, func(r Row) error {
		v, err := decode(r)
		if err != nil {
			return err
		}
		return fn(v)
	})
}

// ScanText reads one text column.
func ScanText(r Row) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

// Places is "$from, $from+1, …" for n values.
func Places(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// FormatID is the id "<prefix>-NNN" of sequence number seq.
func FormatID(prefix string, seq int64) string { return fmt.Sprintf("%s-%03d", prefix, seq) }

// exec runs a statement whose changed rows do not matter.
func (t *Tx) exec(query string, args ...any) error {
	_, err := t.E.Exec(query, args...)
	return err
}

// changed fails with fail when a write changed no row.
func changed(fail error) func(int64) error {
	return func(n int64) error {
		if n == 0 {
			return fail
		}
		return nil
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// IDOrNull is id, or NULL for the table to give the next one.
func IDOrNull(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
