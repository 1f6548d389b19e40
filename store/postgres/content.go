package postgres

import (
	"encoding/json"

	"arbiter/model"
	"arbiter/store"
)

// The errors every engine returns.
var (
	ErrNotFound = store.ErrNotFound
	ErrStale    = store.ErrStale
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
	rows, err := t.query(`SELECT `+unitCols+`, seq, `+relationsAgg+` `+tail, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var rels *string
		u, err := scanUnit(rows, &seq, &rels)
		if err != nil {
			return err
		}
		if u.Relations, err = relationsOf(rels); err != nil {
			return err
		}
		if err := fn(seq, u); err != nil {
			return err
		}
	}
	return rows.Err()
}

// relationsOf reads relations aggregated as [[type, target, description], …].
func relationsOf(agg *string) ([]model.Relation, error) {
	out := []model.Relation{}
	if agg == nil {
		return out, nil
	}
	var rows [][3]string
	if err := json.Unmarshal([]byte(*agg), &rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out = append(out, model.Relation{Type: model.RelationType(r[0]), TargetID: r[1], Description: r[2]})
	}
	return out, nil
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
	return t.eachBallot(`SELECT conflict_id, voter_id, choice, rationale, epoch, cast_at
		FROM votes ORDER BY conflict_id, voter_id`, nil, fn)
}

// NotificationEach yields every notification by id.
func (t *Tx) NotificationEach(fn func(model.Notification) error) error {
	return t.eachNotification(`ORDER BY id`, nil, fn)
}

// EventEach yields every event by id.
func (t *Tx) EventEach(fn func(model.Event) error) error {
	return t.eachEvent(`SELECT `+eventCols+` FROM events ORDER BY id`, nil, fn)
}
