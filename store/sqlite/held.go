package sqlite

import (
	"database/sql"
	"time"

	"arbiter/model"
)

// Decisions held in their undo window (held_decisions; model.HeldDecision).

const heldCols = `id, agent_id, conflict_id, kind, request, held_at, due_at, done_at, outcome`

func scanHeld(sc interface{ Scan(...any) error }) (model.HeldDecision, error) {
	var h model.HeldDecision
	var kind, request, heldAt, dueAt string
	var doneAt, outcome sql.NullString
	if err := sc.Scan(&h.ID, &h.AgentID, &h.ConflictID, &kind, &request, &heldAt, &dueAt, &doneAt, &outcome); err != nil {
		return h, notFound(err)
	}
	h.Kind, h.Request = model.HeldKind(kind), []byte(request)
	h.HeldAt, h.DueAt = parseTime(heldAt), parseTime(dueAt)
	if doneAt.Valid {
		at := parseTime(doneAt.String)
		h.DoneAt = &at
	}
	h.Outcome = outcome.String
	return h, nil
}

func (t *Tx) heldList(query string, args ...any) ([]model.HeldDecision, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.HeldDecision
	for rows.Next() {
		h, err := scanHeld(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// HeldInsert stores h, waiting.
func (t *Tx) HeldInsert(h model.HeldDecision) error {
	_, err := t.exec(`INSERT INTO held_decisions (`+heldCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
		h.ID, h.AgentID, h.ConflictID, string(h.Kind), string(h.Request), fmtTime(h.HeldAt), fmtTime(h.DueAt))
	return err
}

// Held looks up held decision id; ErrNotFound if there is none.
func (t *Tx) Held(id string) (model.HeldDecision, error) {
	return scanHeld(t.row(`SELECT `+heldCols+` FROM held_decisions WHERE id = ?`, id))
}

// HeldDue lists the waiting held decisions due at now, oldest due first,
// at most limit.
func (t *Tx) HeldDue(now time.Time, limit int) ([]model.HeldDecision, error) {
	return t.heldList(`SELECT `+heldCols+` FROM held_decisions WHERE done_at IS NULL AND due_at <= ?
		ORDER BY due_at, id LIMIT ?`, fmtTime(now), limit)
}

// HeldOf lists agentID's held decisions, waiting or done, by the time
// they were held.
func (t *Tx) HeldOf(agentID string) ([]model.HeldDecision, error) {
	return t.heldList(`SELECT `+heldCols+` FROM held_decisions WHERE agent_id = ? ORDER BY held_at, id`, agentID)
}

// HeldDone marks held decision id done at at with outcome, if it still
// waits, and reports whether it did.
func (t *Tx) HeldDone(id string, at time.Time, outcome string) (bool, error) {
	res, err := t.exec(`UPDATE held_decisions SET done_at = ?, outcome = ? WHERE id = ? AND done_at IS NULL`,
		fmtTime(at), outcome, id)
	return affected(res, err)
}

// HeldDelete removes held decision id — only if it still waits, when
// onlyWaiting — and reports whether it did.
func (t *Tx) HeldDelete(id string, onlyWaiting bool) (bool, error) {
	q := `DELETE FROM held_decisions WHERE id = ?`
	if onlyWaiting {
		q += ` AND done_at IS NULL`
	}
	return affected(t.exec(q, id))
}

func affected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
