package sqlite

import (
	"errors"
	"os"
	"path/filepath"

	"arbiter/internal/sqlitefail"
	"arbiter/store"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// shmRoom is the room opening a field for writing takes beside it:
// SQLite's shared-memory file (-shm) is made 32 KB at a time, the first
// when the field opens, and the log (-wal) starts with a page.
const shmRoom = 64 << 10

// noRoom says why the field cannot be opened for writing on a disk
// without room for its -shm file ("" if it can, or if the file is there
// already). SQLite answers a -shm it cannot grow with "disk I/O error"
// for every command, reads included, and leaves the stub behind; a field
// opened read-only without a live log needs neither file.
func noRoom(path string) string {
	if _, err := os.Stat(path + "-shm"); err == nil || !diskFull(path) {
		return ""
	}
	return "its disk is full (less than 64 KB free)"
}

// liveLog reports whether the field's log may hold what its file does
// not: a -wal file with something in it, or one a writer keeps open (its
// -shm file is there). Otherwise a read-only opening reads the file as an
// immutable snapshot and makes neither file.
func liveLog(path string) bool {
	wal, err := os.Stat(path + "-wal")
	if err != nil {
		return false
	}
	if wal.Size() > 0 {
		return true
	}
	_, err = os.Stat(path + "-shm")
	return err == nil
}

// companions is which of a field's -wal and -shm files were there before
// it was opened, and whether the -wal held anything.
type companions struct {
	path           string
	wal, shm       bool
	walHoldsFrames bool
}

func newCompanions(path string) companions {
	wal, werr := os.Stat(path + "-wal")
	_, serr := os.Stat(path + "-shm")
	return companions{path: path, wal: werr == nil, shm: serr == nil, walHoldsFrames: werr == nil && wal.Size() > 0}
}

// explain turns a failed opening into one sentence where arbiter knows
// better than SQLite's "disk I/O error": a full disk, or a log deleted
// under a live writer. It leaves other errors as they are.
func (c companions) explain(err error) error {
	var oe *store.OpenError
	cause := err
	if errors.As(err, &oe) && oe.Err != nil {
		cause = oe.Err
	}
	switch {
	case full(cause) || (ioError(cause) && diskFull(c.path)):
		return &store.OpenError{Name: c.path, Err: cause,
			Reason: "cannot be opened: the disk is full (SQLite needs 32 KB beside it for " + filepath.Base(c.path) + "-shm); free some space on its disk"}
	case shortRead(cause) && c.shm && !c.walHoldsFrames: // an empty -wal: one a reader made since
		return &store.OpenError{Name: c.path, Err: cause, Reason: logDeleted(c.path)}
	}
	return err
}

// logDeleted is the reason a field whose -wal file was deleted under a
// live writer (its -shm file still there) cannot be read.
func logDeleted(path string) string {
	return "cannot be read: its log " + filepath.Base(path) + "-wal was deleted while a program was writing the field; " +
		"close that program (what it wrote since its last checkpoint is only in the log it still holds open), then open the field again"
}

// removeNew removes the -wal and -shm files a failed opening made on a
// full disk: an empty log and a -shm SQLite could not grow. Files that
// were there before, or that hold something, are left alone.
func (c companions) removeNew() {
	if !diskFull(c.path) {
		return
	}
	if fi, err := os.Stat(c.path + "-wal"); !c.wal && err == nil && fi.Size() == 0 {
		os.Remove(c.path + "-wal")
	}
	if fi, err := os.Stat(c.path + "-shm"); !c.shm && err == nil && fi.Size() < 32<<10 {
		os.Remove(c.path + "-shm")
	}
}

// full reports whether SQLite said the disk is full, or could not grow
// its -shm file.
func full(err error) bool {
	code := extendedCode(err)
	return code&0xff == sqlite3.SQLITE_FULL || code == sqlite3.SQLITE_IOERR_SHMSIZE
}

// shortRead reports whether SQLite found a file shorter than it expected:
// a -wal file its -shm file says holds frames that are not there.
func shortRead(err error) bool { return extendedCode(err) == sqlite3.SQLITE_IOERR_SHORT_READ }

func extendedCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

func ioError(err error) bool { return sqlitefail.Code(err) == sqlite3.SQLITE_IOERR }
