package sqlcore

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"arbiter/model"
)

// ConflictCols are a conflict's columns (table alias c), in
// ScanConflict's order: its row's, then why it was detected.
const ConflictCols = conflictRowCols + `, c.detection`

// conflictRowCols are a conflict's columns but its detection, which a
// queue row leaves out (scanConflict's order).
const conflictRowCols = `c.id, c.type, c.status, c.unit_a, c.unit_b, c.description, c.detected_by,
	c.detected_at, c.epoch, c.version,
	c.escalated_by, c.escalated_reason, c.escalated_epoch, c.escalated_at,
	c.vote_opened_by, c.vote_reason, c.vote_opened_epoch, c.vote_opened_at,
	c.strategy, c.winner_id, c.synthesis_unit_id, c.rationale, c.resolved_by, c.epoch_resolved, c.resolved_at,
	c.owner, c.routed_at, c.deadline, c.fallback, c.reminded,
	c.proposed_by, c.proposal_winner, c.proposal_synthesis,
	c.rework_by, c.rework_reason, c.rework_epoch, c.rework_at, c.rework_of`

// SummaryCols are a queue row's columns: the conflict's, its units'
// authors and its ballot counts, which the row carries (the schema keeps
// them), so that no list query joins. ScanSummary reads them.
const SummaryCols = conflictRowCols + `,
	coalesce(c.agent_a, ''), coalesce(c.role_a, ''), coalesce(c.agent_b, ''), coalesce(c.role_b, ''),
	c.votes_a, c.votes_b`

// MutableCols are the columns a decision changes, in MutableArgs' order.
var MutableCols = []string{"status",
	"escalated_by", "escalated_reason", "escalated_epoch", "escalated_at",
	"vote_opened_by", "vote_reason", "vote_opened_epoch", "vote_opened_at",
	"strategy", "winner_id", "synthesis_unit_id", "rationale", "resolved_by", "epoch_resolved", "resolved_at",
	"owner", "routed_at", "deadline", "remind_at", "fallback", "reminded",
	"proposed_by", "proposal_winner", "proposal_synthesis",
	"rework_by", "rework_reason", "rework_epoch", "rework_at"}

// ConflictColumns are the columns a stored conflict is written with, in
// ConflictArgs' order: for INSERT and COPY.
var ConflictColumns = append([]string{"seq", "id", "type", "unit_a", "unit_b", "description", "detected_by",
	"detected_at", "epoch", "version", "rework_of", "detection"}, MutableCols...)

// Statements of conflicts.
var (
	ConflictSQL    = `SELECT ` + ConflictCols + ` FROM conflicts c WHERE c.id = $1`
	InsertConflict = `INSERT INTO conflicts (` + strings.Join(ConflictColumns, ", ") + `) VALUES (` +
		Places(1, len(ConflictColumns)) + `)`
	// SetConflict writes a decided state and version over a conflict's
	// (a bulk write's Decision): MutableArgs, the version, the id.
	SetConflict = `UPDATE conflicts SET (` + strings.Join(MutableCols, ", ") + `, version) = (` +
		Places(1, len(MutableCols)+1) + `) WHERE id = $` + strconv.Itoa(len(MutableCols)+2)
	ConflictsOfUnitSQL = `SELECT ` + ConflictCols + ` FROM conflicts c WHERE c.unit_a = $1
	UNION ALL SELECT ` + ConflictCols + ` FROM conflicts c WHERE c.unit_b = $1`
	// DueSQL spells each index's condition as the index does
	// (conflicts_deadline, conflicts_remind), so that the engine reads
	// the index range and nothing else.
	DueSQL = `SELECT ` + ConflictCols + ` FROM conflicts c WHERE c.seq IN (
	SELECT seq FROM conflicts WHERE deadline IS NOT NULL AND (fallback IS NOT NULL OR reminded < 2) AND deadline <= $1
	UNION
	SELECT seq FROM conflicts WHERE remind_at IS NOT NULL AND reminded = 0 AND remind_at <= $1)
	ORDER BY coalesce(c.deadline, c.remind_at), c.seq`
	// CountConflictsSQL sums the counts the field keeps
	// (conflict_counts: on PostgreSQL the rows writes add).
	CountConflictsSQL = `SELECT status, CAST(sum(n) AS bigint) FROM conflict_counts GROUP BY status`
)

// step is an escalation, a vote's opening or a rework as its columns
// hold it.
type step struct {
	by, reason Text
	epoch      Int
	at         Time
}

func (s step) value() *model.Escalation {
	if !s.by.Valid {
		return nil
	}
	return &model.Escalation{By: s.by.S, Reason: s.reason.S, Epoch: s.epoch.N, At: s.at.T}
}

// ScanConflict reads ConflictCols, then extra.
func ScanConflict(r Row, extra ...any) (model.Conflict, error) {
	var detection Text
	c, err := scanConflict(r, append([]any{&detection}, extra...)...)
	if err != nil || !detection.Valid {
		return c, err
	}
	c.Detection = new(model.Detection)
	return c, json.Unmarshal([]byte(detection.S), c.Detection)
}

// scanConflict reads conflictRowCols, then extra.
func scanConflict(r Row, extra ...any) (model.Conflict, error) {
	var c model.Conflict
	// The columns that need decoding, in one value: one allocation, not
	// one for each.
	var v struct {
		detectedAt, resolvedAt, since, deadline                                                        Time
		esc, vote, rework                                                                              step
		strategy, winner, synth, rationale, resolvedBy, owner, fallback, by, propWinner, propSynth, of Text
		epochResolved                                                                                  Int
		reminded                                                                                       int
	}
	dest := []any{&c.ID, &c.Type, &c.Status, &c.UnitA, &c.UnitB, &c.Description, &c.DetectedBy,
		&v.detectedAt, &c.Epoch, &c.Version,
		&v.esc.by, &v.esc.reason, &v.esc.epoch, &v.esc.at,
		&v.vote.by, &v.vote.reason, &v.vote.epoch, &v.vote.at,
		&v.strategy, &v.winner, &v.synth, &v.rationale, &v.resolvedBy, &v.epochResolved, &v.resolvedAt,
		&v.owner, &v.since, &v.deadline, &v.fallback, &v.reminded,
		&v.by, &v.propWinner, &v.propSynth,
		&v.rework.by, &v.rework.reason, &v.rework.epoch, &v.rework.at, &v.of}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return c, err
	}
	c.DetectedAt = v.detectedAt.T
	c.Escalation, c.VoteOpened, c.Rework = v.esc.value(), v.vote.value(), v.rework.value()
	c.ReworkOf = v.of.S
	if v.since.Valid {
		c.Route = &model.Route{Owner: v.owner.S, Since: v.since.T, Deadline: v.deadline.Ptr(),
			Fallback: model.Fallback(v.fallback.S), Reminded: v.reminded}
	}
	if v.by.Valid {
		c.Proposal = &model.Proposal{By: v.by.S, WinnerID: v.propWinner.Ptr(), Synthesis: v.propSynth.Ptr()}
	}
	if v.strategy.Valid {
		c.Resolution = &model.Resolution{Strategy: model.Strategy(v.strategy.S), WinnerID: v.winner.Ptr(),
			SynthesisUnitID: v.synth.Ptr(), Rationale: v.rationale.S, ResolvedBy: v.resolvedBy.S,
			EpochResolved: v.epochResolved.N, ResolvedAt: v.resolvedAt.T}
	}
	return c, nil
}

// ScanSummary reads SummaryCols.
func ScanSummary(r Row) (model.ConflictSummary, error) {
	var s model.ConflictSummary
	var forA, forB int
	var err error
	s.Conflict, err = scanConflict(r, &s.AgentA, &s.RoleA, &s.AgentB, &s.RoleB, &forA, &forB)
	Tally(&s, forA, forB)
	return s, err
}

// Tally gives s the tally of its ballots: on a pending vote, or where
// ballots were cast.
func Tally(s *model.ConflictSummary, forA, forB int) {
	if s.Status == model.StatusPendingVote || forA+forB > 0 {
		s.Tally = &model.Tally{ForA: forA, ForB: forB}
	}
}

// MutableArgs are c's values for MutableCols.
func MutableArgs(c model.Conflict) []any {
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
	args := append(make([]any, 0, len(MutableCols)+2), string(c.Status))
	args = append(args, esc[:]...)
	args = append(args, vote[:]...)
	args = append(args, res[:]...)
	args = append(args, route[:]...)
	args = append(args, prop[:]...)
	return append(args, rework[:]...)
}

// ConflictArgs are InsertConflict's arguments for c stored at seq.
func ConflictArgs(seq int64, c model.Conflict) []any {
	return append([]any{seq, c.ID, string(c.Type), c.UnitA, c.UnitB, c.Description,
		string(c.DetectedBy), c.DetectedAt, c.Epoch, c.Version, nullIfEmpty(c.ReworkOf), detectionArg(c.Detection)},
		MutableArgs(c)...)
}

// detectionArg is a conflict's detection as its column keeps it: JSON, or
// NULL for a declared conflict.
func detectionArg(d *model.Detection) *string {
	if d == nil {
		return nil
	}
	b, _ := json.Marshal(d) // plain values: it cannot fail
	s := string(b)
	return &s
}

// Conflict looks up a conflict; ErrNotFound if there is none.
func (t *Tx) Conflict(id string) (model.Conflict, error) {
	return ScanConflict(QueryRow(t.E, ConflictSQL, id))
}

// ConflictInsert stores a new conflict at version 1. An empty c.ID gets
// the next "conflict-NNN" id; the id used is returned.
func (t *Tx) ConflictInsert(c model.Conflict) (string, error) {
	seq, err := t.E.Seq("conflicts")
	if err != nil {
		return "", err
	}
	if c.ID == "" {
		c.ID = FormatID("conflict", seq)
	}
	c.Version = 1
	return c.ID, t.E.Later(InsertConflict, ConflictArgs(seq, c), nil)
}

// Conflicts reads the conflicts a query of ConflictCols selects.
func Conflicts(e Engine, query string, args ...any) ([]model.Conflict, error) {
	out, err := Collect(e, query, args, func(r Row) (model.Conflict, error) { return ScanConflict(r) })
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// ConflictsOfUnit lists the conflicts that unit id is part of.
func (t *Tx) ConflictsOfUnit(id string) ([]model.Conflict, error) {
	return Conflicts(t.E, ConflictsOfUnitSQL, id)
}

// ConflictsDue lists the conflicts whose route asks for something at now:
// a reminder not yet sent (conflicts_remind), or a deadline passed with
// something left to do (conflicts_deadline, which leaves out routes
// without a fallback that were told they are overdue). Both indexes hold
// only routed conflicts that still wait, so a field with nothing due
// answers from two empty index ranges. A conflict due both ways comes
// once; the caller decides what its route asks for (model.Route.DueAt).
func (t *Tx) ConflictsDue(now time.Time) ([]model.Conflict, error) {
	return Conflicts(t.E, DueSQL, now)
}

// ConflictByPair finds the conflict between units a and b, whichever of
// them is unit_a; ErrNotFound if there is none. When several exist (a
// pair can be opened twice by different means) the oldest is returned.
func (t *Tx) ConflictByPair(a, b string) (model.Conflict, error) {
	return ScanConflict(QueryRow(t.E, `SELECT `+ConflictCols+` FROM conflicts c
		WHERE (c.unit_a = $1 AND c.unit_b = $2) OR (c.unit_a = $2 AND c.unit_b = $1)
		ORDER BY c.seq LIMIT 1`, a, b))
}

// ConflictList returns one page of conflict summaries, as each calls
// them (the engine's ConflictEach).
func ConflictList(each func(model.ListQuery, func(model.ConflictSummary) error) error, q model.ListQuery) ([]model.ConflictSummary, error) {
	out := []model.ConflictSummary{}
	err := each(q, func(s model.ConflictSummary) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ConflictCount counts conflicts by status, from the counts the field
// keeps.
func (t *Tx) ConflictCount() (map[model.ConflictStatus]int, error) {
	out := map[model.ConflictStatus]int{}
	for _, s := range model.ConflictStatuses {
		out[s] = 0
	}
	err := Each(t.E, CountConflictsSQL, nil, func(r Row) error {
		var s string
		var n int
		err := r.Scan(&s, &n)
		out[model.ConflictStatus(s)] = n
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ConflictEachStored yields every conflict by sequence number.
func (t *Tx) ConflictEachStored(fn func(int64, model.Conflict) error) error {
	return Each(t.E, `SELECT `+ConflictCols+`, c.seq FROM conflicts c ORDER BY c.seq`, nil, func(r Row) error {
		var seq int64
		c, err := ScanConflict(r, &seq)
		if err != nil {
			return err
		}
		return fn(seq, c)
	})
}

// EscapeLike escapes s for a LIKE pattern with ESCAPE '\'.
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
