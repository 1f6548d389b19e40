package sqlite

import (
	"database/sql"
	"encoding/json"
	"strings"

	"arbiter/model"
)

const unitCols = `id, mode, type, content, intent_purpose, intent_task_id, intent_question,
	confidence_score, confidence_reasoning, confidence_evidence, confidence_assumptions,
	agent_id, agent_role, session_id, recorded_at, status, epoch`

func scanUnit(sc interface{ Scan(...any) error }, extra ...any) (model.Unit, error) {
	var u model.Unit
	var task, question, session sql.NullString
	var score sql.NullFloat64
	var evidence, assumptions, at string
	err := sc.Scan(append([]any{&u.ID, &u.Mode, &u.Type, &u.Content, &u.Intent.Purpose, &task, &question,
		&score, &u.Confidence.Reasoning, &evidence, &assumptions,
		&u.Source.AgentID, &u.Source.AgentRole, &session, &at, &u.Status, &u.Epoch}, extra...)...)
	if err != nil {
		return u, err
	}
	u.Intent.TaskID, u.Intent.Question, u.Source.SessionID = strPtr(task), strPtr(question), strPtr(session)
	if score.Valid {
		u.Confidence.Score = &score.Float64
	}
	u.Source.Timestamp = parseTime(at)
	if err := json.Unmarshal([]byte(evidence), &u.Confidence.Evidence); err != nil {
		return u, err
	}
	err = json.Unmarshal([]byte(assumptions), &u.Confidence.Assumptions)
	return u, err
}

// Unit looks up a unit with its relations; ErrNotFound if there is none.
func (t *Tx) Unit(id string) (model.Unit, error) {
	u, err := scanUnit(t.row(unitSQL, id))
	if err != nil {
		return u, notFound(err)
	}
	u.Relations, err = t.Relations(id)
	return u, err
}

const unitSQL = `SELECT ` + unitCols + ` FROM units WHERE id = ?`

// UnitExists reports whether a unit with id is in the field.
func (t *Tx) UnitExists(id string) (bool, error) {
	var n int
	err := t.row(unitExistsSQL, id).Scan(&n)
	return n > 0, err
}

const unitExistsSQL = `SELECT count(*) FROM units WHERE id = ?`

// UnitInsert stores u with its relations. An empty u.ID gets the next
// "mem-NNN" id; the id used is returned.
func (t *Tx) UnitInsert(u model.Unit) (string, error) {
	var seq any
	if u.ID == "" {
		s, id, err := t.nextID("units", "mem")
		if err != nil {
			return "", err
		}
		seq, u.ID = s, id
	}
	if _, err := t.exec(insertUnitSQL, unitArgs(seq, u)...); err != nil {
		return "", err
	}
	for _, r := range u.Relations {
		if _, err := t.exec(insertRelationSQL, u.ID, string(r.Type), r.TargetID, r.Description); err != nil {
			return "", err
		}
	}
	return u.ID, nil
}

const insertUnitSQL = `INSERT INTO units (seq, ` + unitCols + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const insertRelationSQL = `INSERT INTO relations (unit_id, type, target_id, description) VALUES (?, ?, ?, ?)
	ON CONFLICT DO NOTHING`

// unitArgs are insertUnitSQL's arguments for u stored at seq (nil: the
// next rowid).
func unitArgs(seq any, u model.Unit) []any {
	evidence, _ := json.Marshal(nonNil(u.Confidence.Evidence))
	assumptions, _ := json.Marshal(nonNil(u.Confidence.Assumptions))
	var score any
	if u.Confidence.Score != nil {
		score = *u.Confidence.Score
	}
	return []any{seq, u.ID, string(u.Mode), string(u.Type), u.Content, u.Intent.Purpose,
		nullable(u.Intent.TaskID), nullable(u.Intent.Question),
		score, u.Confidence.Reasoning, string(evidence), string(assumptions),
		u.Source.AgentID, u.Source.AgentRole, nullable(u.Source.SessionID),
		fmtTime(u.Source.Timestamp), string(u.Status), u.Epoch}
}

// UnitSetStatus changes a unit's status.
func (t *Tx) UnitSetStatus(id string, s model.UnitStatus) error {
	res, err := t.exec(setUnitStatusSQL, string(s), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

const setUnitStatusSQL = `UPDATE units SET status = ? WHERE id = ?`

// Relations lists the relations a unit carries.
func (t *Tx) Relations(id string) ([]model.Relation, error) {
	rows, err := t.query(relationsSQL, id)
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

const relationsSQL = `SELECT type, target_id, description FROM relations WHERE unit_id = ? ORDER BY type, target_id`

// supportersSQL selects supports relations from units that still stand:
// retracted and superseded units no longer lend their weight.
const supportersSQL = `SELECT r.unit_id FROM relations r JOIN units s ON s.id = r.unit_id
	WHERE r.target_id = ? AND r.type = 'supports' AND s.status NOT IN ('retracted', 'superseded')
	ORDER BY s.seq`

// Supporters lists the live units that support id, oldest first.
func (t *Tx) Supporters(id string) ([]string, error) {
	return t.strings(supportersSQL, id)
}

// strings reads one text column, [] when there is no row.
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
	args := []any{}
	if len(statuses) > 0 {
		q += ` WHERE status IN (?` + strings.Repeat(", ?", len(statuses)-1) + `)`
		for _, s := range statuses {
			args = append(args, string(s))
		}
	}
	var n int64
	err := t.row(q, args...).Scan(&n)
	return n, err
}

// RelationsTo lists the relations other units carry to id, by type and
// then by the carrying unit.
func (t *Tx) RelationsTo(id string) ([]model.Link, error) {
	rows, err := t.query(relationsToSQL, id)
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

const relationsToSQL = `SELECT unit_id, type, description FROM relations WHERE target_id = ? ORDER BY type, unit_id`
