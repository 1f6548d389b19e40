package mcpmemory

import (
	"context"
	"database/sql"
	"strconv"
)

// Every query of their file. Only memories and memory_graph are named;
// memory_embeddings never is.

// queryer is a transaction (or the pool) that reads.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// execer is a write transaction.
type execer interface {
	queryer
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// memory is one row of memories.
type memory struct {
	rowid        int64
	hash         string
	content      string
	tags         sql.NullString
	typ          string
	metadata     sql.NullString
	created      *float64
	updated      *float64
	deleted      *float64
	confidence   *float64
	lastAccessed *float64
	supersededBy string
	parentID     string
	version      *float64
}

func (m memory) active() bool { return m.deleted == nil && m.supersededBy == "" }

const memoryCols = `id, content_hash, content, tags, memory_type, metadata, created_at, updated_at,
	deleted_at, confidence, last_accessed, superseded_by, parent_id, version`

func scanMemory(rows interface{ Scan(...any) error }) (memory, error) {
	var m memory
	var typ, superseded, parent sql.NullString
	var created, updated, deleted, conf, accessed, version any
	err := rows.Scan(&m.rowid, &m.hash, &m.content, &m.tags, &typ, &m.metadata, &created, &updated,
		&deleted, &conf, &accessed, &superseded, &parent, &version)
	m.typ, m.supersededBy, m.parentID = typ.String, superseded.String, parent.String
	m.created, m.updated, m.deleted = number(created), number(updated), number(deleted)
	m.confidence, m.lastAccessed, m.version = number(conf), number(accessed), number(version)
	return m, err
}

// number reads a numeric column leniently: NULL (or text that is not a
// number) is nil.
func number(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return nil
		}
	case []byte:
		var err error
		if f, err = strconv.ParseFloat(string(x), 64); err != nil {
			return nil
		}
	default:
		return nil
	}
	return &f
}

func queryMemories(ctx context.Context, q queryer, where string, args ...any) ([]memory, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+memoryCols+" FROM memories WHERE "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// memoriesByHash loads the memories with these hashes.
func memoriesByHash(ctx context.Context, q queryer, hashes ...string) (map[string]memory, error) {
	out := map[string]memory{}
	for _, h := range hashes {
		if _, done := out[h]; done {
			continue
		}
		ms, err := queryMemories(ctx, q, "content_hash = ?", h)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			out[m.hash] = m
		}
	}
	return out, nil
}

// memoriesByPrefix loads the memories whose hash matches a GLOB pattern
// made by prefix; at most a few.
func memoriesByPrefix(ctx context.Context, q queryer, pattern string) ([]memory, error) {
	return queryMemories(ctx, q, "content_hash GLOB ? ORDER BY id LIMIT 8", pattern)
}

// pair is a contradicts edge a → b with a < b, as their lister reads it.
type pair struct {
	a, b       string
	similarity float64
	metadata   sql.NullString
	created    float64
}

const pairCols = `g.source_hash, g.target_hash, g.similarity, g.metadata, g.created_at`

// openWhere is their lister's WHERE clause (get_conflicts), word for
// word: a contradicts edge from the lower hash, both ends neither
// deleted nor superseded. The tag is not consulted.
const openWhere = `g.relationship_type = 'contradicts'
	AND m1.deleted_at IS NULL AND (m1.superseded_by IS NULL OR m1.superseded_by = '')
	AND m2.deleted_at IS NULL AND (m2.superseded_by IS NULL OR m2.superseded_by = '')
	AND g.source_hash < g.target_hash`

// resolvedWhere: the pair's edges stand, neither end is deleted (their
// delete removes a memory's edges; an edge left to a deleted memory is
// obsolete, not a decision), and at least one end is superseded.
const resolvedWhere = `g.relationship_type = 'contradicts'
	AND m1.deleted_at IS NULL AND m2.deleted_at IS NULL
	AND (COALESCE(m1.superseded_by, '') <> '' OR COALESCE(m2.superseded_by, '') <> '')
	AND g.source_hash < g.target_hash`

const pairFrom = `FROM memory_graph g
	JOIN memories m1 ON m1.content_hash = g.source_hash
	JOIN memories m2 ON m2.content_hash = g.target_hash`

func queryPairs(ctx context.Context, q queryer, where string, args ...any) ([]pair, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+pairCols+" "+pairFrom+" WHERE "+where+
		" ORDER BY g.created_at, g.source_hash, g.target_hash", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair
	for rows.Next() {
		var p pair
		var sim, created any
		if err := rows.Scan(&p.a, &p.b, &sim, &p.metadata, &created); err != nil {
			return nil, err
		}
		if f := number(sim); f != nil {
			p.similarity = *f
		}
		if f := number(created); f != nil {
			p.created = *f
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func countPairs(ctx context.Context, q queryer, where string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) "+pairFrom+" WHERE "+where).Scan(&n)
	return n, err
}

// pairsMatching lists the edges (lower hash first) whose ends match two
// GLOB patterns, in either order, whatever their ends' state.
func pairsMatching(ctx context.Context, q queryer, pa, pb string) ([]pair, error) {
	return queryPairs(ctx, q, `g.relationship_type = 'contradicts' AND g.source_hash < g.target_hash
		AND ((g.source_hash GLOB ?1 AND g.target_hash GLOB ?2) OR (g.source_hash GLOB ?2 AND g.target_hash GLOB ?1))`, pa, pb)
}

// pairsOf lists the edges (lower hash first) with hash at either end.
func pairsOf(ctx context.Context, q queryer, hash string) ([]pair, error) {
	return queryPairs(ctx, q, `g.relationship_type = 'contradicts' AND g.source_hash < g.target_hash
		AND (g.source_hash = ?1 OR g.target_hash = ?1)`, hash)
}

// sharedKeys lists the short conflict ids two or more edges share.
func sharedKeys(ctx context.Context, q queryer) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT substr(source_hash, 1, ?1) || '-' || substr(target_hash, 1, ?1) AS k
		FROM memory_graph WHERE relationship_type = 'contradicts' AND source_hash < target_hash
		GROUP BY k HAVING count(*) > 1`, conflictIDLen)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out[k] = true
	}
	return out, rows.Err()
}

// dismissal is one entry arbiter appended to a memory's conflict_history
// when a person dismissed a pair.
type dismissal struct {
	hash  string // the memory carrying the entry
	entry string // its JSON
}

// historyFrom finds the entries of the conflict_history arrays in
// memories' metadata, without failing on metadata that is not JSON.
const historyFrom = `FROM memories m, json_each(CASE WHEN json_valid(m.metadata) THEN m.metadata ELSE '{}' END, '$.conflict_history') j
	WHERE m.metadata LIKE '%conflict_history%'
	AND json_type(CASE WHEN json_valid(m.metadata) THEN m.metadata ELSE '{}' END, '$.conflict_history') = 'array'
	AND j.type = 'object'`

func dismissals(ctx context.Context, q queryer, hash string) ([]dismissal, error) {
	query := "SELECT m.content_hash, j.value " + historyFrom
	var args []any
	if hash != "" {
		query += " AND m.content_hash = ?"
		args = append(args, hash)
	}
	rows, err := q.QueryContext(ctx, query+" ORDER BY m.id, j.key", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dismissal
	for rows.Next() {
		var d dismissal
		if err := rows.Scan(&d.hash, &d.entry); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// edge is one row of memory_graph seen from one memory.
type edge struct {
	other    string // the hash at the other end
	rel      string
	metadata sql.NullString
	sim      *float64
}

func edges(ctx context.Context, q queryer, column, hash string) ([]edge, error) {
	other := "target_hash"
	if column == "target_hash" {
		other = "source_hash"
	}
	rows, err := q.QueryContext(ctx, "SELECT "+other+", COALESCE(relationship_type, 'related'), metadata, similarity FROM memory_graph WHERE "+
		column+" = ? ORDER BY created_at, "+other, hash)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []edge
	for rows.Next() {
		var e edge
		var sim any
		if err := rows.Scan(&e.other, &e.rel, &e.metadata, &sim); err != nil {
			return nil, err
		}
		e.sim = number(sim)
		out = append(out, e)
	}
	return out, rows.Err()
}

// edgesFrom and edgesTo list a memory's edges, oldest first.
func edgesFrom(ctx context.Context, q queryer, hash string) ([]edge, error) {
	return edges(ctx, q, "source_hash", hash)
}

func edgesTo(ctx context.Context, q queryer, hash string) ([]edge, error) {
	return edges(ctx, q, "target_hash", hash)
}

func hashes(ctx context.Context, q queryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// supersedes lists the memories m supersedes: those whose superseded_by
// names it (their resolve, their versioned update), and the one it is a
// newer version of (its parent_id).
func supersedes(ctx context.Context, q queryer, m memory) ([]string, error) {
	out, err := hashes(ctx, q, "SELECT content_hash FROM memories WHERE superseded_by = ? ORDER BY id", m.hash)
	if err != nil {
		return nil, err
	}
	if m.parentID != "" && m.parentID != m.hash {
		seen := false
		for _, h := range out {
			seen = seen || h == m.parentID
		}
		if !seen {
			out = append(out, m.parentID)
		}
	}
	return out, nil
}

// children lists the newer versions of a memory (parent_id names it).
func children(ctx context.Context, q queryer, hash string) ([]string, error) {
	return hashes(ctx, q, "SELECT content_hash FROM memories WHERE parent_id = ? AND content_hash <> ? ORDER BY id", hash, hash)
}

// supporters lists the standing memories with a supports edge to hash,
// in the order they were stored.
func supporters(ctx context.Context, q queryer, hash string) ([]string, error) {
	return hashes(ctx, q, `SELECT m.content_hash FROM memory_graph g JOIN memories m ON m.content_hash = g.source_hash
		WHERE g.target_hash = ? AND g.relationship_type = 'supports' AND m.content_hash <> g.target_hash
		AND m.deleted_at IS NULL AND (m.superseded_by IS NULL OR m.superseded_by = '')
		GROUP BY m.content_hash ORDER BY min(m.id)`, hash)
}

// inOpenPair reports whether hash is an end of a pair their lister lists.
func inOpenPair(ctx context.Context, q queryer, hash string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) "+pairFrom+" WHERE "+openWhere+
		" AND (g.source_hash = ?1 OR g.target_hash = ?1)", hash).Scan(&n)
	return n > 0, err
}

// The writes, all of them.
const (
	// supersede is their resolve_conflict on the loser; a NULL tags
	// argument leaves the tags as they are (they write none then).
	supersede = `UPDATE memories SET superseded_by = ?, tags = COALESCE(?, tags) WHERE content_hash = ?`
	// boost is their resolve_conflict on the winner.
	boost = `UPDATE memories SET confidence = 1.0, last_accessed = ?, tags = COALESCE(?, tags) WHERE content_hash = ?`
	// noteEdge writes arbiter's record of a decision on one edge.
	noteEdge = `UPDATE memory_graph SET metadata = ? WHERE source_hash = ? AND target_hash = ? AND relationship_type = 'contradicts'`
	// dropEdges removes a dismissed pair's two contradicts edges.
	dropEdges = `DELETE FROM memory_graph WHERE relationship_type = 'contradicts'
		AND ((source_hash = ?1 AND target_hash = ?2) OR (source_hash = ?2 AND target_hash = ?1))`
	// noteMemory writes a dismissed memory's tags and arbiter's entry in
	// its metadata.
	noteMemory = `UPDATE memories SET tags = COALESCE(?, tags), metadata = ? WHERE content_hash = ?`
	// edgeMetadata reads one edge's metadata.
	edgeMetadata = `SELECT metadata FROM memory_graph WHERE source_hash = ? AND target_hash = ? AND relationship_type = 'contradicts'`
)
