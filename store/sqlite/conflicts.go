package sqlite

import (
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"arbiter/model"
)

const conflictCols = `c.id, c.type, c.status, c.unit_a, c.unit_b, c.description, c.detected_by,
	c.detected_at, c.epoch, c.version,
	c.escalated_by, c.escalated_reason, c.escalated_epoch, c.escalated_at,
	c.vote_opened_by, c.vote_reason, c.vote_opened_epoch, c.vote_opened_at,
	c.strategy, c.winner_id, c.synthesis_unit_id, c.rationale, c.resolved_by, c.epoch_resolved, c.resolved_at,
	c.owner, c.routed_at, c.deadline, c.fallback, c.reminded,
	c.proposed_by, c.proposal_winner, c.proposal_synthesis,
	c.rework_by, c.rework_reason, c.rework_epoch, c.rework_at, c.rework_of`

type step struct {
	by, reason, at sql.NullString
	epoch          sql.NullInt64
}

func (s step) value() *model.Escalation {
	if !s.by.Valid {
		return nil
	}
	return &model.Escalation{By: s.by.String, Reason: s.reason.String, Epoch: s.epoch.Int64, At: nullTime(s.at)}
}

func scanConflict(sc interface{ Scan(...any) error }, extra ...any) (model.Conflict, error) {
	var c model.Conflict
	var detectedAt string
	var esc, vote step
	var strategy, winner, synth, rationale, resolvedBy, resolvedAt sql.NullString
	var epochResolved sql.NullInt64
	var rt routeText
	var rework step
	var reworkOf sql.NullString
	dest := []any{&c.ID, &c.Type, &c.Status, &c.UnitA, &c.UnitB, &c.Description, &c.DetectedBy,
		&detectedAt, &c.Epoch, &c.Version,
		&esc.by, &esc.reason, &esc.epoch, &esc.at,
		&vote.by, &vote.reason, &vote.epoch, &vote.at,
		&strategy, &winner, &synth, &rationale, &resolvedBy, &epochResolved, &resolvedAt,
		&rt.owner, &rt.since, &rt.deadline, &rt.fallback, &rt.reminded,
		&rt.proposedBy, &rt.proposalWinner, &rt.proposalSynthesis,
		&rework.by, &rework.reason, &rework.epoch, &rework.at, &reworkOf}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return c, err
	}
	c.DetectedAt = parseTime(detectedAt)
	c.Escalation, c.VoteOpened, c.Rework = esc.value(), vote.value(), rework.value()
	c.Route, c.Proposal, c.ReworkOf = rt.route(), rt.proposal(), reworkOf.String
	if strategy.Valid {
		c.Resolution = &model.Resolution{
			Strategy: model.Strategy(strategy.String), WinnerID: strPtr(winner),
			SynthesisUnitID: strPtr(synth), Rationale: rationale.String,
			ResolvedBy: resolvedBy.String, EpochResolved: epochResolved.Int64,
			ResolvedAt: nullTime(resolvedAt),
		}
	}
	return c, nil
}

// Conflict looks up a conflict; ErrNotFound if there is none.
func (t *Tx) Conflict(id string) (model.Conflict, error) {
	c, err := scanConflict(t.row(conflictSQL, id))
	return c, notFound(err)
}

const conflictSQL = `SELECT ` + conflictCols + ` FROM conflicts c WHERE c.id = ?`

// mutableCols are the columns a decision changes; mutableArgs gives c's
// values for them in the same order.
const mutableCols = `status,
	escalated_by, escalated_reason, escalated_epoch, escalated_at,
	vote_opened_by, vote_reason, vote_opened_epoch, vote_opened_at,
	strategy, winner_id, synthesis_unit_id, rationale, resolved_by, epoch_resolved, resolved_at,
	owner, routed_at, deadline, remind_at, fallback, reminded,
	proposed_by, proposal_winner, proposal_synthesis,
	rework_by, rework_reason, rework_epoch, rework_at`

// mutablePlaces is a placeholder for each of mutableCols.
var mutablePlaces = "?" + strings.Repeat(", ?", strings.Count(mutableCols, ","))

func mutableArgs(c model.Conflict) []any {
	stepArgs := func(e *model.Escalation) [4]any {
		if e == nil {
			return [4]any{}
		}
		return [4]any{e.By, e.Reason, e.Epoch, fmtTime(e.At)}
	}
	esc, vote, rework := stepArgs(c.Escalation), stepArgs(c.VoteOpened), stepArgs(c.Rework)
	var res [7]any
	if r := c.Resolution; r != nil {
		res = [7]any{string(r.Strategy), nullable(r.WinnerID), nullable(r.SynthesisUnitID),
			r.Rationale, r.ResolvedBy, r.EpochResolved, fmtTime(r.ResolvedAt)}
	}
	var route [6]any
	if r := c.Route; r != nil {
		route = [6]any{nullIfEmpty(r.Owner), fmtTime(r.Since), nullTimePtr(r.Deadline), nullTimePtr(r.RemindAt()),
			nullIfEmpty(string(r.Fallback)), r.Reminded}
	} else {
		route[5] = 0
	}
	var prop [3]any
	if p := c.Proposal; p != nil {
		prop = [3]any{p.By, nullable(p.WinnerID), nullable(p.Synthesis)}
	}
	args := append([]any{string(c.Status)}, esc[:]...)
	args = append(args, vote[:]...)
	args = append(args, res[:]...)
	args = append(args, route[:]...)
	args = append(args, prop[:]...)
	return append(args, rework[:]...)
}

// routeText is a conflict's route and proposal as their columns hold
// them.
type routeText struct {
	owner, since, deadline, fallback              sql.NullString
	reminded                                      sql.NullInt64
	proposedBy, proposalWinner, proposalSynthesis sql.NullString
}

func (r routeText) route() *model.Route {
	if !r.since.Valid {
		return nil
	}
	out := &model.Route{Owner: r.owner.String, Since: parseTime(r.since.String), Fallback: model.Fallback(r.fallback.String),
		Reminded: int(r.reminded.Int64)}
	if r.deadline.Valid {
		d := parseTime(r.deadline.String)
		out.Deadline = &d
	}
	return out
}

func (r routeText) proposal() *model.Proposal {
	if !r.proposedBy.Valid {
		return nil
	}
	return &model.Proposal{By: r.proposedBy.String, WinnerID: strPtr(r.proposalWinner), Synthesis: strPtr(r.proposalSynthesis)}
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return fmtTime(*t)
}

// ConflictInsert stores a new conflict at version 1. An empty c.ID gets the
// next "conflict-NNN" id; the id used is returned.
func (t *Tx) ConflictInsert(c model.Conflict) (string, error) {
	var seq any
	if c.ID == "" {
		s, id, err := t.nextID("conflicts", "conflict")
		if err != nil {
			return "", err
		}
		seq, c.ID = s, id
	}
	c.Version = 1
	if _, err := t.exec(insertConflictSQL, conflictArgs(seq, c)...); err != nil {
		return "", err
	}
	return c.ID, nil
}

var insertConflictSQL = `INSERT INTO conflicts (seq, id, type, unit_a, unit_b, description, detected_by,
	detected_at, epoch, version, rework_of, ` + mutableCols + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ` + mutablePlaces + `)`

// conflictArgs are insertConflictSQL's arguments for c stored at seq (nil:
// the next rowid).
func conflictArgs(seq any, c model.Conflict) []any {
	return append([]any{seq, c.ID, string(c.Type), c.UnitA, c.UnitB, c.Description,
		string(c.DetectedBy), fmtTime(c.DetectedAt), c.Epoch, c.Version, nullIfEmpty(c.ReworkOf)}, mutableArgs(c)...)
}

// ConflictUpdate writes c's status, escalation, vote and resolution if the
// stored conflict is still at version expect; its version then grows by
// one (c.Version is ignored). ErrStale otherwise: nothing is written.
func (t *Tx) ConflictUpdate(c model.Conflict, expect int64) error {
	args := append(mutableArgs(c), c.ID, expect)
	r, err := t.exec(updateConflictSQL, args...)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrStale
	}
	return nil
}

var updateConflictSQL = `UPDATE conflicts SET (` + mutableCols + `) =
	(` + mutablePlaces + `), version = version + 1
	WHERE id = ? AND version = ?`

// ConflictsOfUnit lists the conflicts that unit id is part of.
func (t *Tx) ConflictsOfUnit(id string) ([]model.Conflict, error) {
	return t.conflicts(conflictsOfUnitSQL, id, id)
}

// conflicts reads the conflicts a query of conflictCols selects.
func (t *Tx) conflicts(query string, args ...any) ([]model.Conflict, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.Conflict
	for rows.Next() {
		c, err := scanConflict(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

const conflictsOfUnitSQL = `SELECT ` + conflictCols + ` FROM conflicts c WHERE c.unit_a = ?
	UNION ALL SELECT ` + conflictCols + ` FROM conflicts c WHERE c.unit_b = ?`

// ConflictList returns one page of conflict summaries.
func (t *Tx) ConflictList(q model.ListQuery) ([]model.ConflictSummary, error) {
	out := []model.ConflictSummary{}
	err := t.ConflictEach(q, func(s model.ConflictSummary) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ConflictEach calls fn with each conflict summary of ConflictList's page,
// in order, as it is read; an error from fn stops the reading.
func (t *Tx) ConflictEach(q model.ListQuery, fn func(model.ConflictSummary) error) error {
	query, args, packed := listConflictsSQL(q)
	rows, err := t.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var text string
	for rows.Next() {
		var s model.ConflictSummary
		var forA, forB int
		if packed {
			err = rows.Scan(&text)
			if err == nil {
				s, forA, forB, err = scanPacked(text)
			}
		} else {
			s.Conflict, err = scanConflict(rows, &s.AgentA, &s.RoleA, &s.AgentB, &s.RoleB, &forA, &forB)
		}
		if err != nil {
			return err
		}
		if s.Status == model.StatusPendingVote || forA+forB > 0 {
			s.Tally = &model.Tally{ForA: forA, ForB: forB}
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return rows.Err()
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
	cols, from := summaryCols, `conflicts c`
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
		now := fmtTime(q.For.Now)
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
	like := "%" + escapeLike(strings.ToLower(word)) + "%"
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

// summaryCols are a queue row's columns: the conflict's, its units'
// authors and its ballot counts.
const summaryCols = conflictCols + `,
	coalesce(c.agent_a, ''), coalesce(c.role_a, ''), coalesce(c.agent_b, ''), coalesce(c.role_b, ''),
	c.votes_a, c.votes_b`

// ConflictCount counts conflicts by status.
// The field keeps the counts (conflict_counts, migration 3).
func (t *Tx) ConflictCount() (map[model.ConflictStatus]int, error) {
	out := map[model.ConflictStatus]int{}
	for _, s := range model.ConflictStatuses {
		out[s] = 0
	}
	rows, err := t.query(countConflictsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[model.ConflictStatus(s)] = n
	}
	return out, rows.Err()
}

const countConflictsSQL = `SELECT status, n FROM conflict_counts`

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// IsStale reports whether err is ConflictUpdate's stale-version refusal.
func IsStale(err error) bool { return errors.Is(err, ErrStale) }
