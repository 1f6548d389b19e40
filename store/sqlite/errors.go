package sqlite

import (
	"context"
	"errors"
	"fmt"

	"arbiter/model"
	"arbiter/store"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The errors every engine returns.
var (
	ErrNotFound = store.ErrNotFound
	ErrStale    = store.ErrStale
)

func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// Failure is a kind of SQLite failure a person can act on.
type Failure int

// The failures Classify tells apart.
const (
	FailureNone     Failure = iota // any other error
	FailureBusy                    // SQLITE_BUSY, SQLITE_LOCKED: the write lock was held past the busy timeout
	FailureFull                    // SQLITE_FULL: the disk is full
	FailureReadOnly                // SQLITE_READONLY: the file cannot be written
	FailureDamaged                 // SQLITE_CORRUPT, SQLITE_NOTADB: the file is damaged
	FailureIO                      // SQLITE_IOERR: the file could not be read or written
)

// Classify says which failure SQLite's err is; FailureNone for an error
// that is none of them, or not SQLite's.
func Classify(err error) Failure {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return FailureBusy
	case sqlite3.SQLITE_FULL:
		return FailureFull
	case sqlite3.SQLITE_READONLY:
		return FailureReadOnly
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return FailureDamaged
	case sqlite3.SQLITE_IOERR:
		return FailureIO
	}
	return FailureNone
}

// Code is the protocol error code a failure is refused with.
func (f Failure) Code() model.Code {
	switch f {
	case FailureBusy:
		return model.CodeFieldBusy
	case FailureFull:
		return model.CodeStorageFull
	case FailureReadOnly:
		return model.CodeReadOnly
	}
	return model.CodeInternalError
}

// Translate turns SQLite's failures into protocol errors of operation op,
// in the words say gives each kind (what to do, what happened); a damaged
// file or an I/O error adds SQLite's own message. Protocol errors and
// other errors pass through unchanged.
func Translate(op string, err error, say func(Failure) (fix, what string)) error {
	if err == nil {
		return nil
	}
	if _, ok := model.AsError(err); ok {
		return err
	}
	f := Classify(err)
	if f == FailureNone {
		return err
	}
	fix, what := say(f)
	if f == FailureDamaged || f == FailureIO {
		return model.Errorf(op, f.Code(), fix, "%s: %v", what, err)
	}
	return model.Errorf(op, f.Code(), fix, "%s", what)
}

// translate is Translate in the field's words.
func translate(op string, err error) error { return Translate(op, err, fieldWords) }

func fieldWords(f Failure) (fix, what string) {
	switch f {
	case FailureBusy:
		return "try again in a moment", "another program kept the field locked for writing longer than the busy timeout"
	case FailureFull:
		return "free disk space and try again", "the disk is full; nothing was written"
	case FailureReadOnly:
		return "open the field without --read-only, on writable storage", "the field is open read-only; nothing was written"
	case FailureDamaged:
		return "restore the field from a backup", "the field file is damaged"
	}
	return "check the disk and try again", "the field could not be read or written"
}

// busy is the refusal of a write that waited its busy timeout for the
// writers ahead of it (queue.go), or ctx's error.
func busy(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return model.Errorf(op, model.CodeFieldBusy, "try again in a moment",
		"other writers kept the field busy for longer than the busy timeout")
}

// classifyOpen explains a failure while opening a field.
func classifyOpen(path string, err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_NOTADB:
		return &store.OpenError{Name: path, Reason: "is not an arbiter field (not a SQLite database)", Err: err}
	case sqlite3.SQLITE_CORRUPT:
		return &store.OpenError{Name: path, Reason: "is damaged (SQLite reports corruption); restore it from a backup", Err: err}
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return &store.OpenError{Name: path, Reason: "is locked by another program for longer than the busy timeout; try again", Err: err}
	case sqlite3.SQLITE_CANTOPEN:
		return &store.OpenError{Name: path, Reason: "cannot be opened (check the file and its directory permissions)", Err: err}
	case sqlite3.SQLITE_READONLY:
		return &store.OpenError{Name: path, Reason: "cannot be written; open it with --read-only", Err: err}
	}
	return &store.OpenError{Name: path, Reason: fmt.Sprintf("cannot be opened: %v", err), Err: err}
}
