// Package sqlitefail tells SQLite's failures apart and turns them into
// protocol errors a person can act on, in the words of whoever asks: the
// field's engine (store/sqlite) and the adapter of another program's
// SQLite file (service/mcpmemory).
package sqlitefail

import (
	"errors"

	"arbiter/model"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Code is SQLite's primary result code of err; 0 for an error that is
// not SQLite's.
func Code(err error) int {
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
	switch Code(err) {
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
