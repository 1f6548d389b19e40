package mcpmemory

import (
	"errors"

	"arbiter/model"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// translate turns SQLite's failures into protocol errors of operation op
// that a person can act on; other errors pass through unchanged.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := model.AsError(err); ok {
		return err
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return model.Errorf(op, model.CodeFieldBusy, "try again in a moment",
			"another program (mcp-memory-service?) kept the file locked for writing longer than the busy timeout; nothing was written")
	case sqlite3.SQLITE_FULL:
		return model.Errorf(op, model.CodeStorageFull, "free disk space and try again", "the disk is full; nothing was written")
	case sqlite3.SQLITE_READONLY:
		return model.Errorf(op, model.CodeReadOnly, "open the file without --read-only, on writable storage",
			"the file cannot be written; nothing was written")
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return model.Errorf(op, model.CodeInternalError, "restore it from a backup", "the file is damaged: %v", err)
	case sqlite3.SQLITE_IOERR:
		return model.Errorf(op, model.CodeInternalError, "check the disk and try again", "the file could not be read or written: %v", err)
	}
	return err
}
