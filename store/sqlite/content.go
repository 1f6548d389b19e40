package sqlite

import (
	"database/sql"
	"encoding/json"

	"arbiter/model"
)

// Whole-field reads, for copies and their digest (store.Digest): each
// table in the order the field keeps it.

// AgentEach yields every agent by id with the epoch it registered at.
func (t *Tx) AgentEach(fn func(model.Agent, int64) error) error {
	rows, err := t.query(`SELECT ` + agentCols + `, epoch FROM agents ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var epoch int64
		a, err := scanAgent(rows, &epoch)
		if err != nil {
			return err
		}
		if err := fn(a, epoch); err != nil {
			return err
		}
	}
	return rows.Err()
}

// UnitEach yields every unit by sequence number, with its relations.
func (t *Tx) UnitEach(fn func(int64, model.Unit) error) error {
	return t.unitEach(`FROM units ORDER BY seq`, fn)
}

// unitEach yields the units the query's tail (from, where, order) picks,
// with their relations.
func (t *Tx) unitEach(tail string, fn func(int64, model.Unit) error, args ...any) error {
	rows, err := t.query(`SELECT `+unitCols+`, seq,
		(SELECT json_group_array(json_array(type, target_id, description))
		 FROM (SELECT type, target_id, description FROM relations r WHERE r.unit_id = units.id ORDER BY type, target_id))
		`+tail, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var rels string
		u, err := scanUnit(rows, &seq, &rels)
		if err != nil {
			return err
		}
		var agg [][3]string
		if err := json.Unmarshal([]byte(rels), &agg); err != nil {
			return err
		}
		u.Relations = []model.Relation{}
		for _, r := range agg {
			u.Relations = append(u.Relations, model.Relation{Type: model.RelationType(r[0]), TargetID: r[1], Description: r[2]})
		}
		if err := fn(seq, u); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ConflictEachStored yields every conflict by sequence number.
func (t *Tx) ConflictEachStored(fn func(int64, model.Conflict) error) error {
	rows, err := t.query(`SELECT ` + conflictCols + `, c.seq FROM conflicts c ORDER BY c.seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		c, err := scanConflict(rows, &seq)
		if err != nil {
			return err
		}
		if err := fn(seq, c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// BallotEach yields every ballot by conflict id, then voter id.
func (t *Tx) BallotEach(fn func(model.Ballot) error) error {
	rows, err := t.query(`SELECT conflict_id, voter_id, choice, rationale, epoch, cast_at
		FROM votes ORDER BY conflict_id, voter_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var b model.Ballot
		var at string
		if err := rows.Scan(&b.ConflictID, &b.VoterID, &b.Choice, &b.Rationale, &b.Epoch, &at); err != nil {
			return err
		}
		b.CastAt = parseTime(at)
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}

// NotificationEach yields every notification by id.
func (t *Tx) NotificationEach(fn func(model.Notification) error) error {
	rows, err := t.query(notificationsSQL(`ORDER BY id`))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n model.Notification
		var unit, conflict sql.NullString
		var at string
		if err := rows.Scan(&n.ID, &n.AgentID, &n.Event, &n.Epoch, &n.RelevanceScore, &n.Summary,
			&unit, &conflict, &n.RequiresAction, &at); err != nil {
			return err
		}
		n.MemoryUnitID, n.ConflictID, n.CreatedAt = strPtr(unit), strPtr(conflict), parseTime(at)
		if err := fn(n); err != nil {
			return err
		}
	}
	return rows.Err()
}

// EventEach yields every event by id.
func (t *Tx) EventEach(fn func(model.Event) error) error {
	return t.eachEvent(`SELECT `+eventCols+` FROM events ORDER BY id`, nil, fn)
}
