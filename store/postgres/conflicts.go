package postgres

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

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

// step is an escalation, a vote's opening or a rework as its columns
// hold it.
type step struct {
	by, reason *string
	epoch      *int64
	at         *time.Time
}

func (s step) value() *model.Escalation {
	if s.by == nil {
		return nil
	}
	e := &model.Escalation{By: *s.by, Reason: deref(s.reason)}
	if s.epoch != nil {
		e.Epoch = *s.epoch
	}
	if s.at != nil {
		e.At = s.at.UTC()
	}
	return e
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func scanConflict(sc interface{ Scan(...any) error }, extra ...any) (model.Conflict, error) {
	var c model.Conflict
	var detectedAt time.Time
	var esc, vote, rework step
	var strategy, winner, synth, rationale, resolvedBy *string
	var epochResolved *int64
	var resolvedAt *time.Time
	var owner, fallback, proposedBy, proposalWinner, proposalSynthesis, reworkOf *string
	var since, deadline *time.Time
	var reminded int
	dest := []any{&c.ID, &c.Type, &c.Status, &c.UnitA, &c.UnitB, &c.Description, &c.DetectedBy,
		&detectedAt, &c.Epoch, &c.Version,
		&esc.by, &esc.reason, &esc.epoch, &esc.at,
		&vote.by, &vote.reason, &vote.epoch, &vote.at,
		&strategy, &winner, &synth, &rationale, &resolvedBy, &epochResolved, &resolvedAt,
		&owner, &since, &deadline, &fallback, &reminded,
		&proposedBy, &proposalWinner, &proposalSynthesis,
		&rework.by, &rework.reason, &rework.epoch, &rework.at, &reworkOf}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return c, err
	}
	c.DetectedAt = detectedAt.UTC()
	c.Escalation, c.VoteOpened, c.Rework = esc.value(), vote.value(), rework.value()
	c.ReworkOf = deref(reworkOf)
	if since != nil {
		r := &model.Route{Owner: deref(owner), Since: since.UTC(), Fallback: model.Fallback(deref(fallback)), Reminded: reminded}
		if deadline != nil {
			d := deadline.UTC()
			r.Deadline = &d
		}
		c.Route = r
	}
	if proposedBy != nil {
		c.Proposal = &model.Proposal{By: *proposedBy, WinnerID: proposalWinner, Synthesis: proposalSynthesis}
	}
	if strategy != nil {
		r := &model.Resolution{Strategy: model.Strategy(*strategy), WinnerID: winner, SynthesisUnitID: synth,
			Rationale: deref(rationale), ResolvedBy: deref(resolvedBy)}
		if epochResolved != nil {
			r.EpochResolved = *epochResolved
		}
		if resolvedAt != nil {
			r.ResolvedAt = resolvedAt.UTC()
		}
		c.Resolution = r
	}
	return c, nil
}

// Conflict looks up a conflict; ErrNotFound if there is none. A write
// locks its row (tx.go).
func (t *Tx) Conflict(id string) (model.Conflict, error) {
	query := `SELECT ` + conflictCols + ` FROM conflicts c WHERE c.id = $1`
	if t.lock() != "" {
		query = `SELECT ` + conflictCols + ` FROM locked_conflict($1) c`
	}
	c, err := scanConflict(t.row(query, id))
	if err == nil && t.lock() != "" {
		if t.locked == nil {
			t.locked = map[string]int64{}
		}
		t.locked[id] = c.Version
	}
	return c, notFound(err)
}

// mutableArgs are c's values for the columns a decision changes, in
// update_conflict's order.
func mutableArgs(c model.Conflict) []any {
	stepArgs := func(e *model.Escalation) [4]any {
		if e == nil {
			return [4]any{}
		}
		return [4]any{e.By, e.Reason, e.Epoch, e.At}
	}
	esc, vote, rework := stepArgs(c.Escalation), stepArgs(c.VoteOpened), stepArgs(c.Rework)
	var res [7]any
	if r := c.Resolution; r != nil {
		res = [7]any{string(r.Strategy), r.WinnerID, r.SynthesisUnitID, r.Rationale, r.ResolvedBy, r.EpochResolved, r.ResolvedAt}
	}
	route := [6]any{nil, nil, nil, nil, nil, 0}
	if r := c.Route; r != nil {
		route = [6]any{nullIfEmpty(r.Owner), r.Since, r.Deadline, r.RemindAt(), nullIfEmpty(string(r.Fallback)), r.Reminded}
	}
	var prop [3]any
	if p := c.Proposal; p != nil {
		prop = [3]any{p.By, p.WinnerID, p.Synthesis}
	}
	args := append([]any{string(c.Status)}, esc[:]...)
	args = append(args, vote[:]...)
	args = append(args, res[:]...)
	args = append(args, route[:]...)
	args = append(args, prop[:]...)
	return append(args, rework[:]...)
}

// mutableCols are mutableArgs' columns.
var mutableCols = []string{"status",
	"escalated_by", "escalated_reason", "escalated_epoch", "escalated_at",
	"vote_opened_by", "vote_reason", "vote_opened_epoch", "vote_opened_at",
	"strategy", "winner_id", "synthesis_unit_id", "rationale", "resolved_by", "epoch_resolved", "resolved_at",
	"owner", "routed_at", "deadline", "remind_at", "fallback", "reminded",
	"proposed_by", "proposal_winner", "proposal_synthesis",
	"rework_by", "rework_reason", "rework_epoch", "rework_at"}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// conflictColumns are the columns a stored conflict is written with:
// conflictArgs' order, for INSERT and COPY.
var conflictColumns = append([]string{"seq", "id", "type", "unit_a", "unit_b", "description", "detected_by",
	"detected_at", "epoch", "version", "rework_of"}, mutableCols...)

func conflictArgs(seq int64, c model.Conflict) []any {
	return append([]any{seq, c.ID, string(c.Type), c.UnitA, c.UnitB, c.Description,
		string(c.DetectedBy), c.DetectedAt, c.Epoch, c.Version, nullIfEmpty(c.ReworkOf)}, mutableArgs(c)...)
}

var insertConflictSQL = `INSERT INTO conflicts (` + strings.Join(conflictColumns, ", ") + `) VALUES (` +
	placeholders(1, len(conflictColumns)) + `)`

// ConflictInsert stores a new conflict at version 1. An empty c.ID gets
// the next "conflict-NNN" id; the id used is returned.
func (t *Tx) ConflictInsert(c model.Conflict) (string, error) {
	seq, err := t.nextSeq("conflicts")
	if err != nil {
		return "", err
	}
	if c.ID == "" {
		c.ID = formatID("conflict", seq)
	}
	c.Version = 1
	t.later(insertConflictSQL, conflictArgs(seq, c), nil)
	return c.ID, nil
}

// ConflictUpdate writes c's status, steps, route, proposal and resolution
// if the stored conflict is still at version expect; its version then
// grows by one. ErrStale otherwise: nothing is written. It goes through
// update_conflict, the one way a role that is not the field's
// administrator may change a conflict.
func (t *Tx) ConflictUpdate(c model.Conflict, expect int64) error {
	args := append([]any{c.ID, expect}, mutableArgs(c)...)
	sql := `SELECT update_conflict(` + placeholders(1, len(args)) + `)`
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

// ConflictsOfUnit lists the conflicts that unit id is part of.
func (t *Tx) ConflictsOfUnit(id string) ([]model.Conflict, error) {
	return t.conflicts(`SELECT `+conflictCols+` FROM conflicts c WHERE c.unit_a = $1
		UNION ALL SELECT `+conflictCols+` FROM conflicts c WHERE c.unit_b = $1`, id)
}

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

// summaryCols are a queue row's columns: the conflict's, its units'
// authors and its ballot counts, which the row carries (triggers keep
// them), so that no list query joins.
const summaryCols = conflictCols + `,
	coalesce(c.agent_a, ''), coalesce(c.role_a, ''), coalesce(c.agent_b, ''), coalesce(c.role_b, ''),
	c.votes_a, c.votes_b`

// ConflictEach calls fn with each conflict summary of ConflictList's
// page, in order, as it is read; an error from fn stops the reading.
func (t *Tx) ConflictEach(q model.ListQuery, fn func(model.ConflictSummary) error) error {
	query, args := listConflictsSQL(q)
	rows, err := t.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s model.ConflictSummary
		var forA, forB int
		if s.Conflict, err = scanConflict(rows, &s.AgentA, &s.RoleA, &s.AgentB, &s.RoleB, &forA, &forB); err != nil {
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
	query := `SELECT ` + summaryCols + ` FROM conflicts c`
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
	like := arg("%" + escapeLike(strings.ToLower(word)) + "%")
	cond := `(lower(c.id) LIKE ` + like + ` OR c.status LIKE ` + like + ` OR c.type LIKE ` + like + `
		OR lower(c.unit_a) LIKE ` + like + ` OR lower(c.unit_b) LIKE ` + like + `
		OR lower(c.agent_a) LIKE ` + like + ` OR lower(c.agent_b) LIKE ` + like + ` OR lower(c.description) LIKE ` + like
	if q := prefixQuery(word); q != "" && utf8.RuneCountInString(word) >= 2 {
		cond += ` OR c.seq IN (SELECT w.seq FROM conflict_words w WHERE w.words @@ to_tsquery('simple', fold(` + arg(q) + `)))`
	}
	return cond + `)`
}

// prefixQuery is word as a tsquery: its runs of letters and digits one
// after the other, the last a prefix ("eu-west" → 'eu' <-> 'west':*); ""
// if it has none.
func prefixQuery(word string) string {
	parts := strings.FieldsFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(parts) == 0 {
		return ""
	}
	for i, p := range parts {
		parts[i] = "'" + p + "'"
	}
	return strings.Join(parts, " <-> ") + ":*"
}

// ConflictCount counts conflicts by status, from the counts the field
// keeps (conflict_counts: the rows writes add, summed).
func (t *Tx) ConflictCount() (map[model.ConflictStatus]int, error) {
	out := map[model.ConflictStatus]int{}
	for _, s := range model.ConflictStatuses {
		out[s] = 0
	}
	rows, err := t.query(`SELECT status, sum(n)::bigint FROM conflict_counts GROUP BY status`)
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

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func itoa(n int) string { return strconv.Itoa(n) }

// ConflictsDue lists the conflicts whose route asks for something at now:
// a reminder not yet sent (conflicts_remind), or a deadline passed with
// something left to do (conflicts_deadline), oldest first; the caller
// decides what each route asks for (model.Route.DueAt).
func (t *Tx) ConflictsDue(now time.Time) ([]model.Conflict, error) {
	return t.conflicts(`SELECT `+conflictCols+` FROM conflicts c WHERE c.seq IN (
		SELECT seq FROM conflicts WHERE deadline IS NOT NULL AND (fallback IS NOT NULL OR reminded < 2) AND deadline <= $1
		UNION
		SELECT seq FROM conflicts WHERE remind_at IS NOT NULL AND reminded = 0 AND remind_at <= $1)
		ORDER BY coalesce(c.deadline, c.remind_at), c.seq`, now)
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
