package sqlite

import (
	"context"
	"errors"
	"fmt"

	"arbiter/internal/sqlitefail"
	"arbiter/model"
	"arbiter/store"

	sqlite3 "modernc.org/sqlite/lib"
)

// The errors every engine returns.
var (
	ErrNotFound = store.ErrNotFound
	ErrStale    = store.ErrStale
)

// translate is sqlitefail.Translate in the field's words.
func translate(op string, err error) error { return sqlitefail.Translate(op, err, fieldWords) }

func fieldWords(f sqlitefail.Failure) (fix, what string) {
	switch f {
	case sqlitefail.FailureBusy:
		return "try again in a moment", "another program kept the field locked for writing longer than the busy timeout"
	case sqlitefail.FailureFull:
		return "free disk space and try again", "the disk is full; nothing was written"
	case sqlitefail.FailureReadOnly:
		return "open the field without --read-only, on writable storage", "the field is open read-only; nothing was written"
	case sqlitefail.FailureDamaged:
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
	switch sqlitefail.Code(err) {
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
