// Package sqlite keeps an arbiter field in a SQLite file: the schema and
// its migrations, queries and transactions, and nothing else. It is the
// default engine of store.Field.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"arbiter/internal/fsperm"
	"arbiter/model"
	"arbiter/store"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options tune how a field is opened.
type Options = store.Options

// DefaultBusyTimeout is used when Options.BusyTimeout is zero.
const DefaultBusyTimeout = store.DefaultBusyTimeout

// Store is an open field.
type Store struct {
	db       *sql.DB
	watch    *sql.Conn
	ckpt     *checkpointer
	stmts    stmts
	queue    *writeQueue // nil: writers poll for SQLite's lock alone
	busy     time.Duration
	path     string
	readOnly bool
	opt      Options
	// notWritable says why a field asked for read-write was opened
	// read-only (a file or directory that is not writable, a full disk);
	// "" otherwise.
	notWritable string
	// full says the disk had no room to open the field for writing.
	full bool
	// created: by Create, so Remove may delete it (lifecycle.go).
	created bool
	// running are the transactions Close waits for (closing.go).
	running running
	// file is the file the field was opened at (present.go).
	file os.FileInfo
}

// OpenError is a field that cannot be opened: one clear sentence.
type OpenError = store.OpenError

// Open opens an existing field. It never creates one: a missing path is an
// error. A file or directory that is not writable opens read-only.
func Open(ctx context.Context, path string, opt Options) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if dir, derr := os.Stat(filepath.Dir(path)); derr != nil || !dir.IsDir() {
			return nil, &OpenError{Name: path, Reason: "no such field, and no directory " + filepath.Dir(path) + " to make one in", Err: err}
		}
		return nil, &OpenError{Name: path, Reason: "no such field (create one with `arbiter init --db " + path + "`)", Err: err}
	case err != nil:
		return nil, &OpenError{Name: path, Reason: "cannot read: " + err.Error(), Err: err}
	case fi.IsDir():
		return nil, &OpenError{Name: path, Reason: "is a directory, not a field", Err: nil}
	case fi.Size() == 0:
		return nil, &OpenError{Name: path, Reason: "is an empty file, not an arbiter field", Err: nil}
	}
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	s := &Store{path: path, readOnly: opt.ReadOnly, opt: opt}
	if !s.readOnly {
		if why := fsperm.NotWritable(path); why != "" {
			s.readOnly, s.notWritable = true, why
		} else if why := noRoom(path); why != "" {
			s.readOnly, s.notWritable, s.full = true, why, true
		}
	}
	stubs := newCompanions(path)
	if err := s.connect(opt); err != nil {
		stubs.removeNew()
		return nil, stubs.explain(err)
	}
	if err := s.checkFormat(ctx); err != nil {
		s.Close()
		stubs.removeNew()
		return nil, stubs.explain(err)
	}
	if err := s.noteFile(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Create makes a new field at path with policy p. It refuses a path that
// exists.
func Create(ctx context.Context, path string, p model.Policy) (*Store, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, &OpenError{Name: path, Reason: "is a directory: name a file to create the field in (such as " +
				filepath.Join(path, "field.db") + ")", Err: err}
		}
		if errors.Is(err, os.ErrExist) {
			return nil, &OpenError{Name: path, Reason: "already exists; refusing to overwrite it (use it with --db " + path + ", or name a new file)", Err: err}
		}
		if dir, derr := os.Stat(filepath.Dir(path)); derr != nil || !dir.IsDir() {
			return nil, &OpenError{Name: path, Reason: "cannot create: there is no directory " + filepath.Dir(path), Err: err}
		}
		return nil, &OpenError{Name: path, Reason: "cannot create: " + err.Error(), Err: err}
	}
	f.Close()
	s := &Store{path: path, created: true}
	if err := s.connect(Options{}); err != nil {
		removeFiles(path)
		return nil, err
	}
	if err := s.noteFile(); err != nil {
		s.Remove(ctx)
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Remove(ctx)
		return nil, err
	}
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.PolicySet(p) }); err != nil {
		s.Remove(ctx)
		return nil, err
	}
	return s, nil
}

// Path is the field's file.
func (s *Store) Path() string { return s.path }

// Name is the field's file, as store.Field names it.
func (s *Store) Name() string { return s.path }

// ReadOnlyReason says why a field asked for read-write was opened
// read-only (a file or directory that is not writable, a full disk); ""
// otherwise.
func (s *Store) ReadOnlyReason() string { return s.notWritable }

// refuseWrite is what a write to a field open read-only returns.
func (s *Store) refuseWrite() error {
	if s.full {
		return model.Errorf("WRITE", model.CodeStorageFull, "free disk space next to the field and run the command again",
			"the field is open read-only: %s; nothing was written", s.notWritable)
	}
	return store.ReadOnlyError(s.opt, s.notWritable)
}

// ReadOnly reports whether writes are refused.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Close releases the field.
func (s *Store) Close() error {
	s.running.close()
	s.stopCheckpointer()
	s.closeStmts()
	s.queue.close()
	if s.watch != nil {
		s.watch.Close()
	}
	return s.db.Close()
}

func (s *Store) connect(opt Options) error {
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	s.busy = busy
	q := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)", busy.Milliseconds())
	if s.readOnly {
		q += "&mode=ro"
		// Without a live writer's -wal file next to it, read the file as an
		// immutable snapshot: SQLite then creates no -wal or -shm file, so
		// a copy on read-only media opens and nothing is written.
		if !liveLog(s.path) {
			q += "&immutable=1"
		}
	} else {
		// mode=rw: a connection opened later never creates a file where
		// the field's was (present.go).
		q += "&mode=rw&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate" +
			"&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(0)" // see checkpointer
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(s.path)+"?"+q)
	if err != nil {
		return &OpenError{Name: s.path, Reason: "cannot open: " + err.Error(), Err: err}
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	s.db = db
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		return classifyOpen(s.path, err)
	}
	s.watch = conn
	if !s.readOnly {
		s.startCheckpointer()
		s.queue = openQueue(s.path)
	}
	return nil
}

// checkHeader reads the first bytes of the file: a SQLite file starts with
// a fixed magic string.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return &OpenError{Name: path, Reason: "cannot read: " + err.Error(), Err: err}
	}
	defer f.Close()
	head := make([]byte, 100)
	n, _ := f.ReadAt(head, 0)
	if n < 100 || string(head[:16]) != "SQLite format 3\x00" {
		return &OpenError{Name: path, Reason: "is not an arbiter field (not a SQLite database)", Err: nil}
	}
	appID := uint32(head[68])<<24 | uint32(head[69])<<16 | uint32(head[70])<<8 | uint32(head[71])
	// A field created but not yet checkpointed keeps its application_id
	// in the -wal file only; checkFormat asks SQLite before anything is
	// written.
	c := newCompanions(path)
	switch {
	case appID == ApplicationID:
		return nil
	case appID != 0:
		return &OpenError{Name: path, Reason: "is a SQLite database but not an arbiter field", Err: nil}
	case c.wal:
		return nil
	case c.shm:
		return &OpenError{Name: path, Reason: logDeleted(path), Err: nil}
	}
	return &OpenError{Name: path, Err: nil, Reason: "is a SQLite database but not an arbiter field " +
		"(if it is a copy of a field in use, copy that field again with `arbiter copy`: a copy of the file alone misses what is still in its -wal file)"}
}

func (s *Store) checkFormat(ctx context.Context) error {
	var appID int64
	if err := s.watch.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return classifyOpen(s.path, err)
	}
	if uint32(appID) != ApplicationID {
		return &OpenError{Name: s.path, Reason: "is a SQLite database but not an arbiter field", Err: nil}
	}
	var v int
	if err := s.watch.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return classifyOpen(s.path, err)
	}
	switch {
	case v > Version:
		return &OpenError{Name: s.path, Reason: fmt.Sprintf("was written by a newer arbiter (field format %d; this arbiter knows up to %d): upgrade arbiter to open it", v, Version), Err: nil}
	case v < Version && s.readOnly:
		return &OpenError{Name: s.path, Reason: fmt.Sprintf("uses the older field format %d and is open read-only; open it once read-write to upgrade it to %d", v, Version), Err: nil}
	case v < Version:
		return s.migrate(ctx)
	}
	// A quick look at the tables, to catch a damaged file early.
	var n int
	if err := s.watch.QueryRowContext(ctx, "SELECT count(*) FROM clock").Scan(&n); err != nil {
		return classifyOpen(s.path, fmt.Errorf("the clock table is missing or damaged: %w", err))
	} else if n != 1 {
		return &OpenError{Name: s.path, Reason: fmt.Sprintf("is damaged (its clock has %d rows, not 1); restore it from a backup", n), Err: nil}
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	return s.Write(ctx, func(stx store.Tx) error {
		tx := stx.(*Tx)
		var v int
		if err := tx.tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		if v > Version {
			return fmt.Errorf("field format %d is newer than this arbiter's %d", v, Version)
		}
		if v == 0 {
			if _, err := tx.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
				return err
			}
		}
		for i := v; i < Version; i++ {
			if _, err := tx.tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		_, err := tx.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", Version))
		return err
	})
}

// escapePath makes a file path safe inside a SQLite URI.
func escapePath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}
