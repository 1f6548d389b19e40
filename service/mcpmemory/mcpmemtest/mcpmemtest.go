// Package mcpmemtest builds mcp-memory-service databases for tests: the
// schema of their sqlite_vec backend (v10.59: the memories table with
// migration 011's columns, memory_graph with migrations 008 and 009, the
// FTS5 trigram index and its triggers, the metadata table) in a file of
// the test's own, and rows written the way their server writes them:
// a store, a detected contradiction, their resolve, their delete.
//
// memory_embeddings is a sqlite-vec virtual table in their files, which
// a pure-Go SQLite cannot load. By default it is an ordinary table here,
// filled as their store fills it, so tests can check that arbiter never
// touches it; with Vec0 it is declared exactly as they declare it, so
// tests can check that arbiter opens such a file at all.
package mcpmemtest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an mcp-memory-service database under construction.
type DB struct {
	Path string
	t    testing.TB
	db   *sql.DB
	vec0 bool
	// Clock is when the next row is written; each write moves it on by a
	// second, so rows have distinct, ordered times.
	Clock time.Time
}

// Option changes the schema New writes.
type Option func(*schema)

type schema struct{ legacy, vec0 bool }

// Legacy leaves out migration 011 (parent_id, version, confidence,
// last_accessed, superseded_by): a database from before v10.30.
func Legacy() Option { return func(s *schema) { s.legacy = true } }

// Vec0 declares memory_embeddings as their server does, a vec0 virtual
// table, which nothing here can read or write.
func Vec0() Option { return func(s *schema) { s.vec0 = true } }

// New creates sqlite_vec.db in a new temporary directory of t.
func New(t testing.TB, opts ...Option) *DB {
	t.Helper()
	return NewAt(t, filepath.Join(t.TempDir(), "sqlite_vec.db"), opts...)
}

// NewAt creates the database at path.
func NewAt(t testing.TB, path string, opts ...Option) *DB {
	t.Helper()
	var s schema
	for _, o := range opts {
		o(&s)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	d := &DB{Path: path, t: t, db: db, Clock: time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC)}
	t.Cleanup(func() { db.Close() })
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS memories (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			content_hash TEXT UNIQUE NOT NULL,
			content TEXT NOT NULL,
			tags TEXT,
			memory_type TEXT,
			metadata TEXT,
			created_at REAL,
			updated_at REAL,
			created_at_iso TEXT,
			updated_at_iso TEXT,
			deleted_at REAL DEFAULT NULL
		)`,
	}
	if !s.vec0 {
		stmts = append(stmts, `CREATE TABLE memory_embeddings (content_embedding BLOB)`)
	}
	stmts = append(stmts,
		`INSERT OR REPLACE INTO metadata (key, value) VALUES ('distance_metric', 'cosine')`,
		`CREATE INDEX IF NOT EXISTS idx_content_hash ON memories(content_hash)`,
		`CREATE INDEX IF NOT EXISTS idx_created_at ON memories(created_at)`,
		`CREATE INDEX IF NOT EXISTS idx_memory_type ON memories(memory_type)`,
		`CREATE INDEX IF NOT EXISTS idx_deleted_at ON memories(deleted_at)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS memory_content_fts USING fts5(
			content, content='memories', content_rowid='id', tokenize='trigram')`,
		`CREATE TRIGGER IF NOT EXISTS memories_fts_ai AFTER INSERT ON memories
		BEGIN
			INSERT INTO memory_content_fts(rowid, content) VALUES (new.id, new.content);
		END`,
		`CREATE TRIGGER IF NOT EXISTS memories_fts_au AFTER UPDATE ON memories
		BEGIN
			DELETE FROM memory_content_fts WHERE rowid = old.id;
			INSERT INTO memory_content_fts(rowid, content) VALUES (new.id, new.content);
		END`,
		`CREATE TRIGGER IF NOT EXISTS memories_fts_ad AFTER DELETE ON memories
		BEGIN
			DELETE FROM memory_content_fts WHERE rowid = old.id;
		END`,
		`INSERT INTO memory_content_fts(memory_content_fts) VALUES('rebuild')`,
		`INSERT OR REPLACE INTO metadata (key, value) VALUES ('fts5_enabled', 'true')`,
		// 008
		`CREATE TABLE IF NOT EXISTS memory_graph (
			source_hash TEXT NOT NULL,
			target_hash TEXT NOT NULL,
			similarity REAL NOT NULL,
			connection_types TEXT NOT NULL,
			metadata TEXT,
			created_at REAL NOT NULL,
			PRIMARY KEY (source_hash, target_hash)
		)`,
		`CREATE INDEX IF NOT EXISTS idx_graph_source ON memory_graph(source_hash)`,
		`CREATE INDEX IF NOT EXISTS idx_graph_target ON memory_graph(target_hash)`,
		`CREATE INDEX IF NOT EXISTS idx_graph_bidirectional ON memory_graph(source_hash, target_hash)`,
		// 009
		`ALTER TABLE memory_graph ADD COLUMN relationship_type TEXT DEFAULT 'related'`,
		`CREATE INDEX IF NOT EXISTS idx_graph_relationship ON memory_graph(relationship_type)`,
	)
	if !s.legacy {
		stmts = append(stmts, // 011
			`ALTER TABLE memories ADD COLUMN parent_id TEXT`,
			`ALTER TABLE memories ADD COLUMN version INTEGER DEFAULT 1`,
			`ALTER TABLE memories ADD COLUMN confidence REAL DEFAULT 1.0`,
			`ALTER TABLE memories ADD COLUMN last_accessed INTEGER`,
			`ALTER TABLE memories ADD COLUMN superseded_by TEXT`,
		)
	}
	for _, q := range stmts {
		d.exec(q)
	}
	if s.vec0 {
		// Written into the schema directly: CREATE VIRTUAL TABLE needs the
		// module, which only sqlite-vec has.
		d.exec(`PRAGMA writable_schema = ON`)
		d.exec(`INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 'memory_embeddings',
			'memory_embeddings', 0, 'CREATE VIRTUAL TABLE memory_embeddings USING vec0(
                        content_embedding FLOAT[384] distance_metric=cosine
                    )')`)
		d.exec(`PRAGMA writable_schema = OFF`)
		// A fresh connection reads the schema again.
		db.Close()
		if d.db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)"); err != nil {
			t.Fatal(err)
		}
		d.db.SetMaxOpenConns(1)
		t.Cleanup(func() { d.db.Close() })
		d.vec0 = true
	}
	return d
}

// Open opens an existing database at path, as another program (their
// server) would, to write to it or to check what is in it.
func Open(t testing.TB, path string) *DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	var vec int
	db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'memory_embeddings' AND sql LIKE 'CREATE VIRTUAL%'`).Scan(&vec)
	return &DB{Path: path, t: t, db: db, vec0: vec > 0, Clock: time.Now().UTC().Truncate(time.Second)}
}

func (d *DB) exec(q string, args ...any) sql.Result {
	d.t.Helper()
	r, err := d.db.Exec(q, args...)
	if err != nil {
		d.t.Fatalf("%s: %v", strings.Join(strings.Fields(q), " "), err)
	}
	return r
}

// SQL runs a statement on the database, as another program would.
func (d *DB) SQL(q string, args ...any) { d.t.Helper(); d.exec(q, args...) }

// Handle is the database connection, for tests that hold it.
func (d *DB) Handle() *sql.DB { return d.db }

func (d *DB) tick() time.Time {
	at := d.Clock
	d.Clock = d.Clock.Add(time.Second)
	return at
}

// Hash is their content hash of a text (sha256 of the stripped,
// lower-cased text, as their versioned update computes it).
func Hash(content string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(content))))
	return hex.EncodeToString(sum[:])
}

// Memory is what a test stores.
type Memory struct {
	Content  string
	Tags     []string
	Type     string
	Metadata string // JSON, as json.dumps wrote it; "{}" when empty
}

// Store writes a memory as their store does (the row, its embedding, the
// FTS index through the trigger) and returns its hash.
func (d *DB) Store(m Memory) string {
	d.t.Helper()
	at := d.tick()
	h := Hash(m.Content)
	meta := m.Metadata
	if meta == "" {
		meta = "{}"
	}
	secs := Seconds(at)
	iso := at.UTC().Format("2006-01-02T15:04:05.000000") + "Z"
	r := d.exec(`INSERT INTO memories (content_hash, content, tags, memory_type, metadata, created_at, updated_at,
		created_at_iso, updated_at_iso) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		h, m.Content, strings.Join(m.Tags, ","), m.Type, meta, secs, secs, iso, iso)
	if !d.vec0 {
		id, _ := r.LastInsertId()
		emb := make([]byte, 16)
		copy(emb, h)
		d.exec(`INSERT INTO memory_embeddings (rowid, content_embedding) VALUES (?, ?)`, id, emb)
	}
	return h
}

// Seconds is a time as their timestamps are: Unix seconds, REAL.
func Seconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// pyFloat writes a float as Python's json.dumps does for these values.
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// Contradict records a contradiction as their detector does when newer is
// stored and found to contradict existing: the tag on both memories and a
// contradicts edge each way.
func (d *DB) Contradict(newer, existing string, similarity, divergence float64) {
	d.t.Helper()
	at := d.tick()
	meta := fmt.Sprintf(`{"similarity": %s, "divergence": %s, "detected_at": %s}`,
		pyFloat(similarity), pyFloat(divergence), pyFloat(Seconds(at)))
	for _, h := range []string{newer, existing} {
		var tags sql.NullString
		if err := d.db.QueryRow(`SELECT tags FROM memories WHERE content_hash = ?`, h).Scan(&tags); err != nil {
			d.t.Fatal(err)
		}
		if !strings.Contains(tags.String, "conflict:unresolved") {
			nt := "conflict:unresolved"
			if tags.String != "" {
				nt = tags.String + ",conflict:unresolved"
			}
			d.exec(`UPDATE memories SET tags = ? WHERE content_hash = ?`, nt, h)
		}
	}
	for _, e := range [][2]string{{newer, existing}, {existing, newer}} {
		d.exec(`INSERT OR REPLACE INTO memory_graph (source_hash, target_hash, similarity, connection_types,
			metadata, created_at, relationship_type) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			e[0], e[1], similarity, `["semantic"]`, meta, Seconds(at), "contradicts")
	}
}

// Relate writes one edge of another type (supports, related, …).
func (d *DB) Relate(source, target, rel string, similarity float64) {
	d.t.Helper()
	d.exec(`INSERT OR REPLACE INTO memory_graph (source_hash, target_hash, similarity, connection_types,
		metadata, created_at, relationship_type) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		source, target, similarity, `["semantic"]`, `{}`, Seconds(d.tick()), rel)
}

// Resolve is their resolve_conflict(winner, loser), statement for
// statement.
func (d *DB) Resolve(winner, loser string) {
	d.t.Helper()
	now := d.tick()
	d.exec(`UPDATE memories SET superseded_by = ? WHERE content_hash = ?`, winner, loser)
	d.exec(`UPDATE memories SET confidence = 1.0, last_accessed = ? WHERE content_hash = ?`, now.Unix(), winner)
	for _, h := range []string{winner, loser} {
		var tags sql.NullString
		if err := d.db.QueryRow(`SELECT tags FROM memories WHERE content_hash = ?`, h).Scan(&tags); err != nil {
			d.t.Fatal(err)
		}
		if tags.String != "" {
			var keep []string
			for _, t := range strings.Split(tags.String, ",") {
				if t = strings.TrimSpace(t); t != "conflict:unresolved" {
					keep = append(keep, t)
				}
			}
			d.exec(`UPDATE memories SET tags = ? WHERE content_hash = ?`, strings.Join(keep, ","), h)
		}
	}
}

// Delete is their soft delete: the embedding and every edge of the memory
// go, the row stays with deleted_at set.
func (d *DB) Delete(hash string) {
	d.t.Helper()
	var id int64
	if err := d.db.QueryRow(`SELECT id FROM memories WHERE content_hash = ? AND deleted_at IS NULL`, hash).Scan(&id); err != nil {
		d.t.Fatal(err)
	}
	if !d.vec0 {
		d.exec(`DELETE FROM memory_embeddings WHERE rowid = ?`, id)
	}
	d.exec(`DELETE FROM memory_graph WHERE source_hash = ? OR target_hash = ?`, hash, hash)
	d.exec(`UPDATE memories SET deleted_at = ? WHERE content_hash = ? AND deleted_at IS NULL`, Seconds(d.tick()), hash)
}

// MarkDeleted sets deleted_at and leaves the edges, as their delete did
// before it removed a memory's edges (#632).
func (d *DB) MarkDeleted(hash string) {
	d.t.Helper()
	d.exec(`UPDATE memories SET deleted_at = ? WHERE content_hash = ?`, Seconds(d.tick()), hash)
}

// Pair is one row of their lister.
type Pair struct {
	HashA, HashB       string
	Similarity         float64
	Metadata           string
	ContentA, ContentB string
}

// Lister runs their get_conflicts query, word for word.
func (d *DB) Lister() []Pair {
	d.t.Helper()
	rows, err := d.db.Query(`SELECT g.source_hash, g.target_hash, g.similarity, g.metadata,
                              m1.content AS content_a, m2.content AS content_b
                       FROM memory_graph g
                       JOIN memories m1 ON m1.content_hash = g.source_hash
                       JOIN memories m2 ON m2.content_hash = g.target_hash
                       WHERE g.relationship_type = 'contradicts'
                       AND m1.deleted_at IS NULL AND (m1.superseded_by IS NULL OR m1.superseded_by = '')
                       AND m2.deleted_at IS NULL AND (m2.superseded_by IS NULL OR m2.superseded_by = '')
                       AND g.source_hash < g.target_hash`)
	if err != nil {
		d.t.Fatal(err)
	}
	defer rows.Close()
	var out []Pair
	for rows.Next() {
		var p Pair
		var meta sql.NullString
		if err := rows.Scan(&p.HashA, &p.HashB, &p.Similarity, &meta, &p.ContentA, &p.ContentB); err != nil {
			d.t.Fatal(err)
		}
		p.Metadata = meta.String
		out = append(out, p)
	}
	return out
}

// Dump reads every row of every ordinary table (the FTS index's shadow
// tables included; virtual tables, which need their module, left out),
// each row as SQL literals (quote()), sorted: two dumps are equal when
// not a byte of any row differs.
func (d *DB) Dump() map[string][]string {
	d.t.Helper()
	return Dump(d.t, d.db)
}

// Dump is DB.Dump on any connection to such a file.
func Dump(t testing.TB, db *sql.DB) map[string][]string {
	t.Helper()
	tables := map[string][]string{}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	for _, n := range names {
		var cols []string
		cr, err := db.Query(`SELECT name FROM pragma_table_info(?)`, n)
		if err != nil {
			t.Fatal(err)
		}
		for cr.Next() {
			var c string
			cr.Scan(&c)
			cols = append(cols, fmt.Sprintf("quote(%q)", c))
		}
		cr.Close()
		rr, err := db.Query(fmt.Sprintf(`SELECT %s FROM %q`, strings.Join(cols, " || ',' || "), n))
		if err != nil {
			t.Fatalf("dumping %s: %v", n, err)
		}
		out := []string{}
		for rr.Next() {
			var line string
			rr.Scan(&line)
			out = append(out, line)
		}
		rr.Close()
		slices.Sort(out)
		tables[n] = out
	}
	return tables
}

// Diff lists the rows of table that only before has and those only after
// has.
func Diff(before, after map[string][]string, table string) (gone, added []string) {
	b, a := map[string]int{}, map[string]int{}
	for _, r := range before[table] {
		b[r]++
	}
	for _, r := range after[table] {
		a[r]++
	}
	for _, r := range before[table] {
		if a[r] == 0 {
			gone = append(gone, r)
		}
	}
	for _, r := range after[table] {
		if b[r] == 0 {
			added = append(added, r)
		}
	}
	return gone, added
}

// Row is one memory as stored, for checks.
type Row struct {
	Tags, Metadata, SupersededBy sql.NullString
	Confidence                   sql.NullFloat64
	LastAccessed                 sql.NullInt64
	Deleted                      sql.NullFloat64
	Updated                      float64
}

// Memory reads a memory's columns.
func (d *DB) Memory(hash string) Row {
	d.t.Helper()
	var r Row
	err := d.db.QueryRow(`SELECT tags, metadata, superseded_by, confidence, last_accessed, deleted_at, updated_at
		FROM memories WHERE content_hash = ?`, hash).Scan(&r.Tags, &r.Metadata, &r.SupersededBy, &r.Confidence,
		&r.LastAccessed, &r.Deleted, &r.Updated)
	if err != nil {
		d.t.Fatal(err)
	}
	return r
}

// EdgeMetadata reads one edge's metadata; ok is false when there is no
// such contradicts edge.
func (d *DB) EdgeMetadata(source, target string) (meta map[string]any, raw string, ok bool) {
	d.t.Helper()
	var s sql.NullString
	err := d.db.QueryRow(`SELECT metadata FROM memory_graph WHERE source_hash = ? AND target_hash = ?
		AND relationship_type = 'contradicts'`, source, target).Scan(&s)
	if err == sql.ErrNoRows {
		return nil, "", false
	}
	if err != nil {
		d.t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(s.String), &meta); err != nil {
		d.t.Fatalf("edge metadata %q: %v", s.String, err)
	}
	return meta, s.String, true
}

// Close closes the connection (t's cleanup does too).
func (d *DB) Close() { d.db.Close() }
