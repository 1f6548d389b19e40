package mcpmemory

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	"arbiter/internal/fsperm"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options tune how a file is opened.
type Options struct {
	// ReadOnly opens the file without writing to it: not a byte changes.
	ReadOnly bool
	// BusyTimeout bounds how long a decision waits for the server's write
	// lock; store.DefaultBusyTimeout when zero.
	BusyTimeout time.Duration
	// Owner is the person arbiter runs as (--as): the memories' owner, a
	// human operator. "" for nobody: the screen only shows the file.
	Owner string
	// Now stamps decisions; time.Now when nil.
	Now func() time.Time
}

// Desk is an open mcp-memory-service database, reviewed through the same
// interface as an arbiter field.
type Desk struct {
	db       *sql.DB
	watch    *sql.Conn
	path     string
	readOnly string // why decisions are refused; "" when they are not
	asked    bool   // read-only because --read-only asked for it
	owner    string
	now      func() time.Time
}

var _ review.Desk = (*Desk)(nil)

// Server names mcp-memory-service where arbiter shows who wrote something.
const Server = "mcp-memory-service"

// NeededVersion is the release of mcp-memory-service whose migration 011
// adds the columns a resolution writes (superseded_by, confidence,
// last_accessed).
const NeededVersion = "v10.30.0"

// Recognize reports whether path is an mcp-memory-service database: a
// SQLite file without arbiter's application_id whose memories table is
// keyed by content_hash. It only reads, and changes nothing.
func Recognize(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	head := make([]byte, 100)
	n, _ := f.ReadAt(head, 0)
	f.Close()
	if n < 100 || string(head[:16]) != "SQLite format 3\x00" {
		return false
	}
	if appID := uint32(head[68])<<24 | uint32(head[69])<<16 | uint32(head[70])<<8 | uint32(head[71]); appID != 0 {
		return false
	}
	db, err := sql.Open("sqlite", dsn(path, true, time.Second))
	if err != nil {
		return false
	}
	defer db.Close()
	cols, err := columns(context.Background(), db, "memories")
	return err == nil && cols["content_hash"] && cols["content"]
}

// Open opens the mcp-memory-service database at path. A file or
// directory that cannot be written opens read-only. A database from
// before migration 011 is refused: it cannot hold a resolution.
func Open(ctx context.Context, path string, opt Options) (*Desk, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, &store.OpenError{Name: path, Reason: "cannot read: " + err.Error(), Err: err}
	}
	d := &Desk{path: path, owner: opt.Owner, now: opt.Now}
	if d.now == nil {
		d.now = time.Now
	}
	if d.asked = opt.ReadOnly; d.asked {
		d.readOnly = "opened with --read-only"
	} else {
		d.readOnly = fsperm.NotWritable(path)
	}
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = store.DefaultBusyTimeout
	}
	db, err := sql.Open("sqlite", dsn(path, d.readOnly != "", busy))
	if err != nil {
		return nil, &store.OpenError{Name: path, Reason: "cannot open: " + err.Error(), Err: err}
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	d.db = db
	if d.watch, err = db.Conn(ctx); err != nil {
		db.Close()
		return nil, &store.OpenError{Name: path, Reason: "cannot be opened: " + err.Error(), Err: err}
	}
	if err := d.checkSchema(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// dsn is how arbiter opens their file: their WAL as they set it (arbiter
// never changes the journal mode), a bounded busy wait, and writes that
// take the write lock first (BEGIN IMMEDIATE). Read-only, it is opened
// mode=ro, and immutable when no -wal file shows a live writer, so that
// SQLite creates no -wal or -shm file and not a byte changes.
func dsn(path string, readOnly bool, busy time.Duration) string {
	q := fmt.Sprintf("_pragma=busy_timeout(%d)", busy.Milliseconds())
	if readOnly {
		q += "&mode=ro"
		if _, err := os.Stat(path + "-wal"); err != nil {
			q += "&immutable=1"
		}
	} else {
		q += "&_txlock=immediate"
	}
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(path) + "?" + q
}

// The columns arbiter reads, and those it needs to record a resolution:
// migration 011 added the last three with parent_id and version.
var (
	memoryColumns  = []string{"id", "content_hash", "content", "tags", "memory_type", "metadata", "created_at", "updated_at", "deleted_at"}
	resolveColumns = []string{"superseded_by", "confidence", "last_accessed", "parent_id", "version"}
	graphColumns   = []string{"source_hash", "target_hash", "similarity", "metadata", "created_at", "relationship_type"}
)

// checkSchema refuses, in one line, a file whose tables lack what
// arbiter reads or writes.
func (d *Desk) checkSchema(ctx context.Context) error {
	mem, err := columns(ctx, d.watch, "memories")
	if err != nil {
		return d.openError(err)
	}
	graph, err := columns(ctx, d.watch, "memory_graph")
	if err != nil {
		return d.openError(err)
	}
	var missing []string
	for _, c := range append(append([]string{}, memoryColumns...), resolveColumns...) {
		if !mem[c] {
			missing = append(missing, "memories."+c)
		}
	}
	if len(graph) == 0 {
		missing = append(missing, "memory_graph")
	} else {
		for _, c := range graphColumns {
			if !graph[c] {
				missing = append(missing, "memory_graph."+c)
			}
		}
	}
	if len(missing) > 0 {
		return &store.OpenError{Name: d.path, Reason: fmt.Sprintf(
			"is an mcp-memory-service database older than its migration 011 (it has no %s): "+
				"run mcp-memory-service %s or later on it once, which adds them, then open it again",
			strings.Join(missing, ", "), NeededVersion)}
	}
	return nil
}

func (d *Desk) openError(err error) error {
	return &store.OpenError{Name: d.path, Reason: "cannot be read: " + err.Error(), Err: err}
}

type rowQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// columns lists a table's columns; none when there is no such table.
func columns(ctx context.Context, q rowQueryer, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// Path is the file.
func (d *Desk) Path() string { return d.path }

// ReadOnlyReason says why a file asked for read-write was opened
// read-only ("" otherwise), for the notice the command line prints.
func (d *Desk) ReadOnlyReason() string {
	if d.asked {
		return ""
	}
	return d.readOnly
}

// Close releases the file.
func (d *Desk) Close() error {
	if d.watch != nil {
		d.watch.Close()
	}
	return d.db.Close()
}

// ReadOnly reports whether decisions are refused, and why.
func (d *Desk) ReadOnly() (bool, string) { return d.readOnly != "", d.readOnly }

// Offline: decisions on their file are never sent to a decisions file.
func (d *Desk) Offline() (string, bool) { return "", false }

// OfflineDecided: nothing, as there is no decisions file.
func (d *Desk) OfflineDecided() (map[string]string, error) { return map[string]string{}, nil }

// Changed is SQLite's data_version on a connection of its own: it moves
// whenever another connection commits — their server storing a memory,
// or a decision made here.
func (d *Desk) Changed(ctx context.Context) (int64, error) {
	var v int64
	err := d.watch.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, translate("WATCH", err)
}

// read runs fn in a read transaction: one consistent snapshot.
func (d *Desk) read(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return translate(op, err)
	}
	defer tx.Rollback()
	return translate(op, fn(tx))
}

// write runs fn in a short write transaction that takes the write lock
// first (BEGIN IMMEDIATE), waiting at most the busy timeout; fn's error
// rolls everything back.
func (d *Desk) write(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	if d.readOnly != "" {
		hint := "open it without --read-only"
		if !d.asked {
			hint = "fix the file's permissions, or decide on a writable copy"
		}
		return model.Errorf(op, model.CodeReadOnly, hint, "the file is read-only (%s); nothing was written", d.readOnly)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return translate(op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return translate(op, err)
	}
	if err := tx.Commit(); err != nil {
		tx.Rollback()
		return translate(op, err)
	}
	return nil
}
