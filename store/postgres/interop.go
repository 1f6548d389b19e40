package postgres

import (
	"strconv"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Queries for importing Akashik SDK logs.

// ConflictByPair finds the conflict between units a and b, whichever of
// them is unit_a; the oldest when there are several; ErrNotFound if none.
func (t *Tx) ConflictByPair(a, b string) (model.Conflict, error) {
	c, err := scanConflict(t.row(`SELECT `+conflictCols+` FROM conflicts c
		WHERE (c.unit_a = $1 AND c.unit_b = $2) OR (c.unit_a = $2 AND c.unit_b = $1)
		ORDER BY c.seq LIMIT 1`, a, b))
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
	_, err := t.exec(`UPDATE units SET mode = 'committed', status = 'active' WHERE id = $1 AND mode = 'draft'`, id)
	return err
}

// Standings returns the standing of those of ids that are units of the
// field; ids that are not are missing from the map.
func (t *Tx) Standings(ids []string) (map[string]store.Standing, error) {
	out := make(map[string]store.Standing, len(ids))
	rows, err := t.query(`SELECT id, mode, status, agent_id FROM units WHERE id = ANY ($1::text[])`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var s store.Standing
		if err := rows.Scan(&id, &s.Mode, &s.Status, &s.AgentID); err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, rows.Err()
}

// UnitSeqAlign moves a unit with an id of arbiter's own form (mem-NNN) but
// another sequence number to sequence number NNN, when that is free, so
// that the ids arbiter gives later never collide with it.
func (t *Tx) UnitSeqAlign(id string) error {
	digits, ok := strings.CutPrefix(id, "mem-")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 {
		return nil
	}
	if _, err = t.exec(`UPDATE units SET seq = $1 WHERE id = $2 AND seq <> $1
		AND NOT EXISTS (SELECT 1 FROM units WHERE seq = $1)`, n, id); err != nil {
		return err
	}
	_, err = t.exec(`SELECT align_numbers()`)
	return err
}

// UnitSeqNext is the sequence number the next unit gets: one more than
// the largest stored (an import numbers its units from it, then aligns
// the sequence past them).
func (t *Tx) UnitSeqNext() (int64, error) {
	var n int64
	err := t.row(`SELECT coalesce(max(seq), 0) + 1 FROM units`).Scan(&n)
	return n, err
}
