package sqlite

import (
	"strconv"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Queries for importing Akashik SDK logs and for decisions made offline.

// ConflictByPair finds the conflict between units a and b, whichever of
// them is unit_a; ErrNotFound if there is none. When several exist (a
// pair can be opened twice by different means) the oldest is returned.
func (t *Tx) ConflictByPair(a, b string) (model.Conflict, error) {
	c, err := scanConflict(t.row(`SELECT `+conflictCols+` FROM conflicts c
		WHERE (c.unit_a = ? AND c.unit_b = ?) OR (c.unit_a = ? AND c.unit_b = ?)
		ORDER BY c.seq LIMIT 1`, a, b, b, a))
	return c, notFound(err)
}

// UnitCommit turns a draft unit into a committed, active one. A unit that
// is not a draft is left alone; ErrNotFound if there is no such unit.
func (t *Tx) UnitCommit(id string) error {
	if ok, err := t.UnitExists(id); err != nil {
		return err
	} else if !ok {
		return ErrNotFound
	}
	_, err := t.exec(`UPDATE units SET mode = 'committed', status = 'active' WHERE id = ? AND mode = 'draft'`, id)
	return err
}

// MessageApplied reports whether a decision carried by the message with
// this id was already applied to conflictID: the MERGE or VOTE event that
// applied it keeps the id as payload.message_id.
func (t *Tx) MessageApplied(conflictID, messageID string) (bool, error) {
	var n int
	err := t.row(`SELECT count(*) FROM events
		WHERE conflict_id = ? AND operation IN ('MERGE', 'VOTE')
		AND json_extract(payload, '$.message_id') = ?`, conflictID, messageID).Scan(&n)
	return n > 0, err
}

// DecisionEach calls fn with every MERGE and VOTE event of the log, oldest
// first; fn's error stops the walk and is returned.
func (t *Tx) DecisionEach(fn func(model.Event) error) error {
	return t.eachEvent(`SELECT `+eventCols+` FROM events WHERE operation IN ('MERGE', 'VOTE') ORDER BY id`, nil, fn)
}

// Standings returns the standing of those of ids that are units of the
// field; ids that are not are missing from the map.
func (t *Tx) Standings(ids []string) (map[string]store.Standing, error) {
	const chunk = 500
	out := make(map[string]store.Standing, len(ids))
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		rows, err := t.query(`SELECT id, mode, status, agent_id FROM units WHERE id IN (?`+strings.Repeat(", ?", n-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var s store.Standing
			if err := rows.Scan(&id, &s.Mode, &s.Status, &s.AgentID); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = s
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// UnitSeqAlign moves a unit stored with an id of arbiter's own form (mem-NNN)
// but another sequence number to sequence number NNN, when that is free,
// so that the ids arbiter gives later (from the largest seq) never collide
// with it. Other ids are left alone.
func (t *Tx) UnitSeqAlign(id string) error {
	digits, ok := strings.CutPrefix(id, "mem-")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 {
		return nil
	}
	_, err = t.exec(`UPDATE units SET seq = ? WHERE id = ? AND seq <> ?
		AND NOT EXISTS (SELECT 1 FROM units WHERE seq = ?)`, n, id, n, n)
	return err
}

// UnitSeqNext is the sequence number the next unit gets: one more than
// the largest stored.
func (t *Tx) UnitSeqNext() (int64, error) {
	seq, _, err := t.nextID("units", "mem")
	return seq, err
}
