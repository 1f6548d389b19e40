package postgres

import (
	"time"

	"arbiter/model"

	"github.com/jackc/pgx/v5/pgconn"
)

// Decisions held in their undo window (held_decisions; model.HeldDecision).

const heldCols = `id, agent_id, conflict_id, kind, request, held_at, due_at, done_at, outcome`

func scanHeld(sc interface{ Scan(...any) error }) (model.HeldDecision, error) {
	var h model.HeldDecision
	var kind, request string
	var doneAt *time.Time
	var outcome *string
	if err := sc.Scan(&h.ID, &h.AgentID, &h.ConflictID, &kind, &request, &h.HeldAt, &h.DueAt, &doneAt, &outcome); err != nil {
		return h, notFound(err)
	}
	h.Kind, h.Request = model.HeldKind(kind), []byte(request)
	h.HeldAt, h.DueAt = h.HeldAt.UTC(), h.DueAt.UTC()
	if doneAt != nil {
		at := doneAt.UTC()
		h.DoneAt = &at
	}
	if outcome != nil {
		h.Outcome = *outcome
	}
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
	_, err := t.exec(`INSERT INTO held_decisions (`+heldCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL)`,
		h.ID, h.AgentID, h.ConflictID, string(h.Kind), string(h.Request), h.HeldAt, h.DueAt)
	return err
}

// Held looks up held decision id; ErrNotFound if there is none.
func (t *Tx) Held(id string) (model.HeldDecision, error) {
	return scanHeld(t.row(`SELECT `+heldCols+` FROM held_decisions WHERE id = $1`, id))
}

// HeldDue lists the waiting held decisions due at now, oldest due first,
// at most limit.
func (t *Tx) HeldDue(now time.Time, limit int) ([]model.HeldDecision, error) {
	return t.heldList(`SELECT `+heldCols+` FROM held_decisions WHERE done_at IS NULL AND due_at <= $1
		ORDER BY due_at, id LIMIT $2`, now, limit)
}

// HeldOf lists agentID's held decisions, waiting or done, by the time
// they were held.
func (t *Tx) HeldOf(agentID string) ([]model.HeldDecision, error) {
	return t.heldList(`SELECT `+heldCols+` FROM held_decisions WHERE agent_id = $1 ORDER BY held_at, id`, agentID)
}

// HeldDone marks held decision id done at at with outcome, if it still
// waits, and reports whether it did. Two racing: the later one's row
// lock fails on the first's commit (serialization failure), and run
// again it finds the row done.
func (t *Tx) HeldDone(id string, at time.Time, outcome string) (bool, error) {
	return rowsAffected(t.exec(`UPDATE held_decisions SET done_at = $2, outcome = $3 WHERE id = $1 AND done_at IS NULL`,
		id, at, outcome))
}

// HeldDelete removes held decision id — only if it still waits, when
// onlyWaiting — and reports whether it did.
func (t *Tx) HeldDelete(id string, onlyWaiting bool) (bool, error) {
	q := `DELETE FROM held_decisions WHERE id = $1`
	if onlyWaiting {
		q += ` AND done_at IS NULL`
	}
	return rowsAffected(t.exec(q, id))
}

func rowsAffected(tag pgconn.CommandTag, err error) (bool, error) {
	return err == nil && tag.RowsAffected() > 0, err
}
