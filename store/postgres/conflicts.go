package postgres

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// Conflict looks up a conflict; ErrNotFound if there is none. A write
// locks its row (tx.go).
func (t *Tx) Conflict(id string) (model.Conflict, error) {
	if t.lock() == "" {
		return t.Tx.Conflict(id)
	}
	c, err := sqlcore.ScanConflict(t.row(`SELECT `+sqlcore.ConflictCols+` FROM locked_conflict($1) c`, id))
	if err == nil {
		if t.locked == nil {
			t.locked = map[string]int64{}
		}
		t.locked[id] = c.Version
	}
	return c, err
}

// ConflictUpdate writes c's status, steps, route, proposal and resolution
// if the stored conflict is still at version expect; its version then
// grows by one. ErrStale otherwise: nothing is written. It goes through
// update_conflict, the one way a role that is not the field's
// administrator may change a conflict.
func (t *Tx) ConflictUpdate(c model.Conflict, expect int64) error {
	args := append([]any{c.ID, expect}, sqlcore.MutableArgs(c)...)
	sql := `SELECT update_conflict(` + sqlcore.Places(1, len(args)) + `)`
	if v, ok := t.locked[c.ID]; ok && v == expect {
		// The row is locked at that version: the compare-and-set holds,
		// and goes with the next statement.
		t.locked[c.ID] = expect + 1
		t.later(sql, args, func(br pgx.BatchResults) error {
			var n int
			if err := br.QueryRow().Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return ErrStale
			}
			return nil
		})
		return nil
	}
	var n int
	if err := t.row(sql, args...).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrStale
	}
	if _, ok := t.locked[c.ID]; ok {
		t.locked[c.ID] = expect + 1
	}
	return nil
}

// ConflictList returns one page of conflict summaries.
func (t *Tx) ConflictList(q model.ListQuery) ([]model.ConflictSummary, error) {
	return sqlcore.ConflictList(t.ConflictEach, q)
}

// ConflictEach calls fn with each conflict summary of ConflictList's
// page, in order, as it is read; an error from fn stops the reading.
func (t *Tx) ConflictEach(q model.ListQuery, fn func(model.ConflictSummary) error) error {
	query, args := listConflictsSQL(q)
	return sqlcore.EachOf(t.E, query, args, sqlcore.ScanSummary, fn)
}

// listConflictsSQL is ConflictList's query for q and its arguments. The
// review queue (escalated and pending_vote, what the screen and list show
// first) is read from the partial indexes conflicts_queue and
// conflicts_queue_type in queue order; other statuses from the indexes
// on (status, epoch, seq), (epoch, seq) and (type, epoch, seq).
func listConflictsSQL(q model.ListQuery) (string, []any) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	review := len(q.Statuses) > 0
	for _, s := range q.Statuses {
		review = review && slices.Contains(model.ReviewStatuses, s)
	}
	if review {
		// The partial indexes' condition, as written, so the planner
		// uses them.
		where = append(where, `c.status IN ('escalated', 'pending_vote')`)
	}
	if len(q.Statuses) > 0 && (!review || len(q.Statuses) < len(model.ReviewStatuses)) {
		names := make([]string, len(q.Statuses))
		for i, s := range q.Statuses {
			names[i] = string(s)
		}
		where = append(where, `c.status = ANY (`+arg(names)+`::text[])`)
	}
	for _, word := range strings.Fields(q.Search) {
		where = append(where, searchWord(word, arg))
	}
	query := `SELECT ` + sqlcore.SummaryCols + ` FROM conflicts c`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	if q.Sort == model.SortType {
		query += ` ORDER BY c.type, c.epoch, c.seq`
	} else {
		query += ` ORDER BY c.epoch, c.seq`
	}
	if q.Limit > 0 {
		query += ` LIMIT ` + arg(q.Limit) + ` OFFSET ` + arg(q.Offset)
	}
	return query, args
}

// searchWord is the condition a conflict meets when it matches one word
// of a search, as on SQLite (store/sqlite searchWord): the word is part
// of what the queue shows of it — its id, status, type, units' ids,
// authors or description, case-insensitive — or begins a word of its
// description or of either unit's text, from two letters on. The words
// are PostgreSQL's own full-text search: conflict_words holds each
// conflict's tsvector (the 'simple' configuration over fold's lower-case,
// diacritic-free text), and the word is asked for as a prefix: its runs
// of letters and digits in sequence, the last one a prefix, as FTS5
// reads "word"*.
func searchWord(word string, arg func(any) string) string {
	like := arg("%" + sqlcore.EscapeLike(strings.ToLower(word)) + "%")
	cond := `(lower(c.id) LIKE ` + like + ` OR c.status LIKE ` + like + ` OR c.type LIKE ` + like + `
		OR lower(c.unit_a) LIKE ` + like + ` OR lower(c.unit_b) LIKE ` + like + `
		OR lower(c.agent_a) LIKE ` + like + ` OR lower(c.agent_b) LIKE ` + like + ` OR lower(c.description) LIKE ` + like
	if q := prefixQuery(word); q != "" && utf8.RuneCountInString(word) >= 2 {
		cond += ` OR c.seq IN (SELECT w.seq FROM conflict_words w WHERE w.words @@ to_tsquery('simple', fold(` + arg(q) + `)))`
	}
	return cond + `)`
}

// ConflictSetReminded records the reminders sent on id's route, as a
// compare-and-set on the count (set_reminded): ErrStale if it is no
// longer from. The version stays.
func (t *Tx) ConflictSetReminded(id string, from, reminders int) error {
	var n int
	if err := t.row(`SELECT set_reminded($1, $2, $3)`, id, from, reminders).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrStale
	}
	return nil
}
