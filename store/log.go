package store

import (
	"database/sql"
	"encoding/json"

	"arbiter/model"
)

// Ballots lists the current ballots of a conflict's vote, oldest first.
func (t *Tx) Ballots(conflictID string) ([]model.Ballot, error) {
	rows, err := t.query(`SELECT conflict_id, voter_id, choice, rationale, epoch, cast_at
		FROM votes WHERE conflict_id = ? ORDER BY epoch, voter_id`, conflictID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Ballot{}
	for rows.Next() {
		var b model.Ballot
		var at string
		if err := rows.Scan(&b.ConflictID, &b.VoterID, &b.Choice, &b.Rationale, &b.Epoch, &at); err != nil {
			return nil, err
		}
		b.CastAt = parseTime(at)
		out = append(out, b)
	}
	return out, rows.Err()
}

// PutBallot casts b, or replaces the voter's earlier ballot.
func (t *Tx) PutBallot(b model.Ballot) error {
	_, err := t.exec(`INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (conflict_id, voter_id) DO UPDATE SET choice = excluded.choice,
			rationale = excluded.rationale, epoch = excluded.epoch, cast_at = excluded.cast_at`,
		b.ConflictID, b.VoterID, b.Choice, b.Rationale, b.Epoch, fmtTime(b.CastAt))
	return err
}

// Notify puts n in its agent's outbox and returns its id.
func (t *Tx) Notify(n model.Notification) (int64, error) {
	var id int64
	err := t.row(`INSERT INTO notifications (agent_id, event, epoch, relevance_score, summary, unit_id,
		conflict_id, requires_action, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		n.AgentID, n.Event, n.Epoch, n.RelevanceScore, n.Summary, nullable(n.MemoryUnitID),
		nullable(n.ConflictID), n.RequiresAction, fmtTime(n.CreatedAt)).Scan(&id)
	return id, err
}

const notificationCols = `id, agent_id, event, epoch, relevance_score, summary, unit_id, conflict_id,
	requires_action, created_at`

func (t *Tx) notifications(query string, args ...any) ([]model.Notification, error) {
	rows, err := t.query(`SELECT `+notificationCols+` FROM notifications `+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Notification{}
	for rows.Next() {
		var n model.Notification
		var unit, conflict sql.NullString
		var at string
		if err := rows.Scan(&n.ID, &n.AgentID, &n.Event, &n.Epoch, &n.RelevanceScore, &n.Summary,
			&unit, &conflict, &n.RequiresAction, &at); err != nil {
			return nil, err
		}
		n.MemoryUnitID, n.ConflictID, n.CreatedAt = strPtr(unit), strPtr(conflict), parseTime(at)
		out = append(out, n)
	}
	return out, rows.Err()
}

// Inbox lists an agent's notifications after id since, oldest first, at
// most limit (0: all).
func (t *Tx) Inbox(agentID string, since int64, limit int) ([]model.Notification, error) {
	if limit <= 0 {
		limit = -1
	}
	return t.notifications(`WHERE agent_id = ? AND id > ? ORDER BY id LIMIT ?`, agentID, since, limit)
}

// NotificationsOfConflict lists the notifications sent about a conflict.
func (t *Tx) NotificationsOfConflict(conflictID string) ([]model.Notification, error) {
	return t.notifications(`WHERE conflict_id = ? ORDER BY id`, conflictID)
}

// AppendEvent adds e to the append-only log and returns its id.
func (t *Tx) AppendEvent(e model.Event) (int64, error) {
	payload := string(e.Payload)
	if payload == "" {
		payload = "{}"
	}
	var id int64
	err := t.row(`INSERT INTO events (epoch, operation, agent_id, conflict_id, unit_id, payload, at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.Epoch, e.Operation, e.AgentID, nullable(e.ConflictID), nullable(e.UnitID), payload, fmtTime(e.At)).Scan(&id)
	return id, err
}

// EventsOfConflict lists the log entries about a conflict, in order.
func (t *Tx) EventsOfConflict(conflictID string) ([]model.Event, error) {
	rows, err := t.query(`SELECT id, epoch, operation, agent_id, conflict_id, unit_id, payload, at
		FROM events WHERE conflict_id = ? ORDER BY id`, conflictID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Event{}
	for rows.Next() {
		var e model.Event
		var conflict, unit sql.NullString
		var payload, at string
		if err := rows.Scan(&e.ID, &e.Epoch, &e.Operation, &e.AgentID, &conflict, &unit, &payload, &at); err != nil {
			return nil, err
		}
		e.ConflictID, e.UnitID, e.At = strPtr(conflict), strPtr(unit), parseTime(at)
		e.Payload = json.RawMessage(payload)
		out = append(out, e)
	}
	return out, rows.Err()
}

// ClearBallots removes the ballots of a conflict's earlier vote, when a
// new vote opens on it.
func (t *Tx) ClearBallots(conflictID string) error {
	_, err := t.exec(`DELETE FROM votes WHERE conflict_id = ?`, conflictID)
	return err
}
