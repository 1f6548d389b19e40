package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"arbiter/model"

	"github.com/jackc/pgx/v5"
)

const unitCols = `id, mode, type, content, intent_purpose, intent_task_id, intent_question,
	confidence_score, confidence_reasoning, confidence_evidence, confidence_assumptions,
	agent_id, agent_role, session_id, recorded_at, status, epoch`

func scanUnit(sc interface{ Scan(...any) error }, extra ...any) (model.Unit, error) {
	var u model.Unit
	var evidence, assumptions string
	var at time.Time
	err := sc.Scan(append([]any{&u.ID, &u.Mode, &u.Type, &u.Content, &u.Intent.Purpose, &u.Intent.TaskID, &u.Intent.Question,
		&u.Confidence.Score, &u.Confidence.Reasoning, &evidence, &assumptions,
		&u.Source.AgentID, &u.Source.AgentRole, &u.Source.SessionID, &at, &u.Status, &u.Epoch}, extra...)...)
	if err != nil {
		return u, err
	}
	u.Source.Timestamp = at.UTC()
	if err := json.Unmarshal([]byte(evidence), &u.Confidence.Evidence); err != nil {
		return u, err
	}
	err = json.Unmarshal([]byte(assumptions), &u.Confidence.Assumptions)
	return u, err
}

// Unit looks up a unit with its relations; ErrNotFound if there is none.
// A write locks the unit's row (tx.go).
func (t *Tx) Unit(id string) (model.Unit, error) {
	var rels *string
	u, err := scanUnit(t.row(`SELECT `+unitCols+`, `+relationsAgg+` FROM units WHERE id = $1`+t.lock(), id), &rels)
	if err != nil {
		return u, notFound(err)
	}
	u.Relations, err = relationsOf(rels)
	return u, err
}

// relationsAgg is a unit's relations, by type and target, as
// [[type, target, description], …] (relationsOf reads it): with the unit,
// in the same round trip.
const relationsAgg = `(SELECT json_agg(json_build_array(r.type, r.target_id, r.description) ORDER BY r.type, r.target_id)
		FROM relations r WHERE r.unit_id = units.id)`

// UnitExists reports whether a unit with id is in the field (locking it,
// as Unit does).
func (t *Tx) UnitExists(id string) (bool, error) {
	rows, err := t.query(`SELECT 1 FROM units WHERE id = $1`+t.lock(), id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// UnitInsert stores u with its relations. An empty u.ID gets the next
// "mem-NNN" id; the id used is returned.
func (t *Tx) UnitInsert(u model.Unit) (string, error) {
	seq, err := t.nextSeq("units")
	if err != nil {
		return "", err
	}
	if u.ID == "" {
		u.ID = formatID("mem", seq)
	}
	t.later(insertUnitSQL, unitArgs(seq, u), nil)
	for _, r := range u.Relations {
		t.later(insertRelationSQL, []any{u.ID, string(r.Type), r.TargetID, r.Description}, nil)
	}
	return u.ID, nil
}

const insertUnitSQL = `INSERT INTO units (seq, ` + unitCols + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`

const insertRelationSQL = `INSERT INTO relations (unit_id, type, target_id, description) VALUES ($1, $2, $3, $4)
	ON CONFLICT DO NOTHING`

// unitColumns are insertUnitSQL's columns, for COPY.
var unitColumns = []string{"seq", "id", "mode", "type", "content", "intent_purpose", "intent_task_id", "intent_question",
	"confidence_score", "confidence_reasoning", "confidence_evidence", "confidence_assumptions",
	"agent_id", "agent_role", "session_id", "recorded_at", "status", "epoch"}

func unitArgs(seq int64, u model.Unit) []any {
	evidence, _ := json.Marshal(nonNil(u.Confidence.Evidence))
	assumptions, _ := json.Marshal(nonNil(u.Confidence.Assumptions))
	return []any{seq, u.ID, string(u.Mode), string(u.Type), u.Content, u.Intent.Purpose,
		u.Intent.TaskID, u.Intent.Question,
		u.Confidence.Score, u.Confidence.Reasoning, string(evidence), string(assumptions),
		u.Source.AgentID, u.Source.AgentRole, u.Source.SessionID,
		u.Source.Timestamp, string(u.Status), u.Epoch}
}

// UnitSetStatus changes a unit's status (with the next statement: a
// unit that is not there is ErrNotFound then).
func (t *Tx) UnitSetStatus(id string, s model.UnitStatus) error {
	t.later(`UPDATE units SET status = $1 WHERE id = $2`, []any{string(s), id}, func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err == nil && tag.RowsAffected() == 0 {
			err = fmt.Errorf("unit %s: %w", id, ErrNotFound)
		}
		return err
	})
	return nil
}

// Relations lists the relations a unit carries.
func (t *Tx) Relations(id string) ([]model.Relation, error) {
	rows, err := t.query(`SELECT type, target_id, description FROM relations WHERE unit_id = $1 ORDER BY type, target_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Relation{}
	for rows.Next() {
		var r model.Relation
		if err := rows.Scan(&r.Type, &r.TargetID, &r.Description); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Supporters lists the live units that support id, oldest first:
// retracted and superseded units no longer lend their weight.
func (t *Tx) Supporters(id string) ([]string, error) {
	return t.strings(`SELECT r.unit_id FROM relations r JOIN units s ON s.id = r.unit_id
		WHERE r.target_id = $1 AND r.type = 'supports' AND s.status NOT IN ('retracted', 'superseded')
		ORDER BY s.seq`, id)
}

// Supersedes lists the units id carries a supersedes relation to, by id,
// leaving out units the field does not hold.
func (t *Tx) Supersedes(id string) ([]string, error) {
	out, err := t.strings(`SELECT r.target_id FROM relations r JOIN units u ON u.id = r.target_id
		WHERE r.unit_id = $1 AND r.type = 'supersedes' ORDER BY r.target_id`, id)
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// strings reads one text column.
func (t *Tx) strings(query string, args ...any) ([]string, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// UnitCount counts the units in any of the statuses (all units if none).
func (t *Tx) UnitCount(statuses ...model.UnitStatus) (int64, error) {
	q := `SELECT count(*) FROM units`
	var args []any
	if len(statuses) > 0 {
		names := make([]string, len(statuses))
		for i, s := range statuses {
			names[i] = string(s)
		}
		q += ` WHERE status = ANY ($1)`
		args = append(args, names)
	}
	var n int64
	err := t.row(q, args...).Scan(&n)
	return n, err
}

// RelationsTo lists the relations other units carry to id, by type and
// then by the carrying unit.
func (t *Tx) RelationsTo(id string) ([]model.Link, error) {
	rows, err := t.query(`SELECT unit_id, type, description FROM relations WHERE target_id = $1 ORDER BY type, unit_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Link{}
	for rows.Next() {
		var l model.Link
		if err := rows.Scan(&l.From, &l.Type, &l.Description); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// placeholders is "$from, $from+1, …" for n values.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$")
		b.WriteString(itoa(from + i))
	}
	return b.String()
}
