package sqlite

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// updateConflictSQL writes a decision if the conflict is still at the
// version the decider read (MutableArgs, the id, that version).
var updateConflictSQL = `UPDATE conflicts SET (` + strings.Join(sqlcore.MutableCols, ", ") + `) =
	(` + sqlcore.Places(1, len(sqlcore.MutableCols)) + `), version = version + 1
	WHERE id = $` + strconv.Itoa(len(sqlcore.MutableCols)+1) + ` AND version = $` + strconv.Itoa(len(sqlcore.MutableCols)+2)

// ConflictUpdate writes c's status, escalation, vote and resolution if the
// stored conflict is still at version expect; its version then grows by
// one (c.Version is ignored). ErrStale otherwise: nothing is written.
func (t *Tx) ConflictUpdate(c model.Conflict, expect int64) error {
	r, err := t.exec(updateConflictSQL, append(sqlcore.MutableArgs(c), c.ID, expect)...)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrStale
	}
	return nil
}

// ConflictList returns one page of conflict summaries.
func (t *Tx) ConflictList(q model.ListQuery) ([]model.ConflictSummary, error) {
	return sqlcore.ConflictList(t.ConflictEach, q)
}

// ConflictEach calls fn with each conflict summary of ConflictList's page,
// in order, as it is read; an error from fn stops the reading. The review
// queue's rows come packed (packed.go).
func (t *Tx) ConflictEach(q model.ListQuery, fn func(model.ConflictSummary) error) error {
	query, args, packed := listConflictsSQL(q)
	return sqlcore.Each(t.E, query, args, func(r sqlcore.Row) error {
		if !packed {
			s, err := sqlcore.ScanSummary(r)
			if err != nil {
				return err
			}
			return fn(s)
		}
		var text string
		if err := r.Scan(&text); err != nil {
			return err
		}
		s, forA, forB, err := scanPacked(text)
		if err != nil {
			return err
		}
		sqlcore.Tally(&s, forA, forB)
		return fn(s)
	})
}

// listConflictsSQL is ConflictList's query for q, its arguments, and
// whether it reads packed rows (packed.go).
//
// Each conflict row carries its units' authors and its ballot counts
// (migration 3), so no query here joins. The review queue — escalated and
// pending_vote, the default of the screen and of list — is one scan of
// conflicts_queue, which holds those conflicts in queue order, each row
// packed: on a million-unit field that reads a few hundred pages instead
// of one page per conflict. Other statuses pick a page from the status
// and epoch indexes first, then read only its rows.
func listConflictsSQL(q model.ListQuery) (query string, args []any, packed bool) {
	var where []string
	cols, from := sqlcore.SummaryCols, `conflicts c`
	review := len(q.Statuses) > 0
	for _, s := range q.Statuses {
		review = review && slices.Contains(model.ReviewStatuses, s)
	}
	if review {
		// The index's expression and condition, word for word: SQLite
		// matches them as written, and its table has no alias here.
		cols, from = queueRow, `conflicts INDEXED BY conflicts_queue`
		where = append(where, `status IN ('escalated', 'pending_vote')`)
	}
	if len(q.Statuses) > 0 && (!review || len(q.Statuses) < len(model.ReviewStatuses)) {
		where = append(where, `status IN (?`+strings.Repeat(", ?", len(q.Statuses)-1)+`)`)
		for _, s := range q.Statuses {
			args = append(args, string(s))
		}
	}
	for _, word := range strings.Fields(q.Search) {
		w, a := searchWord(word, review)
		where, args = append(where, w), append(args, a...)
	}
	orderBy := func(table string) string {
		if q.Sort == model.SortType {
			return ` ORDER BY ` + table + `type, ` + table + `epoch, ` + table + `seq`
		}
		return ` ORDER BY ` + table + `epoch, ` + table + `seq`
	}
	order := orderBy("")
	paged := q.Limit > 0 && strings.TrimSpace(q.Search) == "" && !review
	if paged {
		page := `SELECT seq FROM conflicts`
		if len(where) > 0 {
			page += ` WHERE ` + strings.Join(where, ` AND `)
		}
		from = `(` + page + order + ` LIMIT ? OFFSET ?) page JOIN conflicts c ON c.seq = page.seq`
		order = orderBy("c.")
		args = append(args, q.Limit, q.Offset)
		where = nil
	}
	if review && q.For != nil {
		// Ordered for one person: compute whose turn each row is in a
		// subquery, then order by it (a sort of the open conflicts,
		// read from the index alone).
		turn, targs := turnSQL(*q.For)
		inner := `SELECT ` + cols + ` AS packed, ` + turn + ` AS turn, owner, remind_at, type, epoch, seq FROM ` + from
		if len(where) > 0 {
			inner += ` WHERE ` + strings.Join(where, ` AND `)
		}
		args = append(targs, args...)
		query = `SELECT packed FROM (` + inner + `)`
		if q.Mine {
			query += ` WHERE turn = 1`
		}
		now := sqlcore.FormatTime(q.For.Now)
		query += ` ORDER BY CASE WHEN turn = 1 AND owner = ? THEN 0 WHEN turn = 1 AND remind_at <= ? THEN 1
			WHEN turn = 1 THEN 2 WHEN remind_at <= ? THEN 3 ELSE 4 END, ` + strings.TrimPrefix(order, ` ORDER BY `)
		args = append(args, q.For.ID, now, now)
		if q.Limit > 0 {
			query += ` LIMIT ? OFFSET ?`
			args = append(args, q.Limit, q.Offset)
		}
		return query, args, review
	}
	query = `SELECT ` + cols + ` FROM ` + from
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += order
	if q.Limit > 0 && !paged {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	return query, args, review
}

// turnSQL is 1 for a queue row that is v's turn to act on, else 0 — what
// model.TurnOf says of it, in SQL — and its arguments.
func turnSQL(v model.Viewer) (string, []any) {
	recused := `(? AND (agent_a = ? OR agent_b = ?))`
	expr := `(CASE
		WHEN status = 'escalated' AND (? OR (? AND owner = ?)) AND NOT ` + recused + ` THEN 1
		WHEN status = 'pending_vote' AND NOT ` + recused + ` AND ((? AND NOT EXISTS
			(SELECT 1 FROM votes v WHERE v.conflict_id = id AND v.voter_id = ?)) OR (? AND ?)) THEN 1
		ELSE 0 END)`
	args := []any{v.Operator, v.OwnersDecide, v.ID, v.Recusal, v.ID, v.ID,
		v.Recusal, v.ID, v.ID, v.Voter, v.ID, v.Override, v.Operator}
	return expr, args
}

// searchWord is the condition a conflict meets when it matches one word
// of a search, and its arguments: the word is part of what the queue
// shows of it — its id, status, type, units' ids, authors or description
// — or begins a word of its description or of either unit's text
// (conflicts_text; from two letters on, since a one-letter prefix
// matches nearly everything and costs the most).
//
// On the review queue the row's columns are matched all at once in its
// packed text, which conflicts_queue holds: no row of the table is read
// for them (a third of a keystroke's time on a million-unit field). The
// packed text holds a little more than the queue shows — the escalation's
// and the vote's reasons, times and numbers — which a word may match too.
func searchWord(word string, packed bool) (string, []any) {
	like := "%" + sqlcore.EscapeLike(strings.ToLower(word)) + "%"
	cond := `(lower(id) LIKE ? ESCAPE '\' OR status LIKE ? ESCAPE '\' OR type LIKE ? ESCAPE '\'
		OR lower(unit_a) LIKE ? ESCAPE '\' OR lower(unit_b) LIKE ? ESCAPE '\'
		OR lower(agent_a) LIKE ? ESCAPE '\' OR lower(agent_b) LIKE ? ESCAPE '\' OR lower(description) LIKE ? ESCAPE '\'`
	args := []any{like, like, like, like, like, like, like, like}
	if packed {
		cond, args = `(lower(`+queueRow+`) LIKE ? ESCAPE '\'`, []any{like}
	}
	if utf8.RuneCountInString(word) >= 2 {
		cond += ` OR seq IN (SELECT rowid FROM conflicts_text WHERE conflicts_text MATCH ?)`
		args = append(args, `"`+strings.ReplaceAll(word, `"`, `""`)+`"*`)
	}
	return cond + `)`, args
}
