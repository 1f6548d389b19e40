package sqlcore

import (
	"time"

	"arbiter/model"
)

// Decisions held in their undo window (held_decisions; model.HeldDecision).

const heldCols = `id, agent_id, conflict_id, kind, request, held_at, due_at, done_at, outcome`

func scanHeld(r Row) (model.HeldDecision, error) {
	var h model.HeldDecision
	var kind, request string
	var heldAt, dueAt, doneAt Time
	var outcome Text
	err := r.Scan(&h.ID, &h.AgentID, &h.ConflictID, &kind, &request, &heldAt, &dueAt, &doneAt, &outcome)
	h.Kind, h.Request = model.HeldKind(kind), []byte(request)
	h.HeldAt, h.DueAt, h.DoneAt = heldAt.T, dueAt.T, doneAt.Ptr()
	if o := outcome.Ptr(); o != nil {
		h.Outcome = *o
	}
	return h, err
}

// HeldInsert stores h, waiting.
func (t *Tx) HeldInsert(h model.HeldDecision) error {
	return t.exec(`INSERT INTO held_decisions (`+heldCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL)`,
		h.ID, h.AgentID, h.ConflictID, string(h.Kind), string(h.Request), h.HeldAt, h.DueAt)
}

// Held looks up held decision id; ErrNotFound if there is none.
func (t *Tx) Held(id string) (model.HeldDecision, error) {
	return scanHeld(QueryRow(t.E, `SELECT `+heldCols+` FROM held_decisions WHERE id = $1`, id))
}

// HeldDue lists the waiting held decisions due at now, oldest due first,
// at most limit.
func (t *Tx) HeldDue(now time.Time, limit int) ([]model.HeldDecision, error) {
	return Collect(t.E, `SELECT `+heldCols+` FROM held_decisions WHERE done_at IS NULL AND due_at <= $1
		ORDER BY due_at, id LIMIT $2`, []any{now, limit}, scanHeld)
}

// HeldOf lists agentID's held decisions, waiting or done, by the time
// they were held.
func (t *Tx) HeldOf(agentID string) ([]model.HeldDecision, error) {
	return Collect(t.E, `SELECT `+heldCols+` FROM held_decisions WHERE agent_id = $1 ORDER BY held_at, id`,
		[]any{agentID}, scanHeld)
}

// HeldDone marks held decision id done at at with outcome, if it still
// waits, and reports whether it did. On PostgreSQL, of two racing the
// later one's row lock fails on the first's commit (serialization
// failure), and run again it finds the row done.
func (t *Tx) HeldDone(id string, at time.Time, outcome string) (bool, error) {
	n, err := t.E.Exec(`UPDATE held_decisions SET done_at = $2, outcome = $3 WHERE id = $1 AND done_at IS NULL`,
		id, at, outcome)
	return n > 0, err
}

// HeldDelete removes held decision id — only if it still waits, when
// onlyWaiting — and reports whether it did.
func (t *Tx) HeldDelete(id string, onlyWaiting bool) (bool, error) {
	q := `DELETE FROM held_decisions WHERE id = $1`
	if onlyWaiting {
		q += ` AND done_at IS NULL`
	}
	n, err := t.E.Exec(q, id)
	return n > 0, err
}
