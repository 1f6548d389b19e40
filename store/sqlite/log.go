package sqlite

import (
	"database/sql"
	"encoding/json"

	"arbiter/model"
)

// Ballots lists the current ballots of a conflict's vote, oldest first.
func (t *Tx) Ballots(conflictID string) ([]model.Ballot, error) {
	rows, err := t.query(ballotsSQL, conflictID)
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

const ballotsSQL = `SELECT conflict_id, voter_id, choice, rationale, epoch, cast_at
	FROM votes WHERE conflict_id = ? ORDER BY epoch, voter_id`

// BallotPut casts b, or replaces the voter's earlier ballot.
func (t *Tx) BallotPut(b model.Ballot) error {
	_, err := t.exec(putBallotSQL, ballotArgs(b)...)
	return err
}

const putBallotSQL = `INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at)
	VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (conflict_id, voter_id) DO UPDATE SET choice = excluded.choice,
		rationale = excluded.rationale, epoch = excluded.epoch, cast_at = excluded.cast_at`

func ballotArgs(b model.Ballot) []any {
	return []any{b.ConflictID, b.VoterID, b.Choice, b.Rationale, b.Epoch, fmtTime(b.CastAt)}
}

// NotificationInsert puts n in its agent's outbox and returns its id.
func (t *Tx) NotificationInsert(n model.Notification) (int64, error) {
	var id int64
	err := t.row(insertNotificationSQL+` RETURNING id`, notificationArgs(n)...).Scan(&id)
	return id, err
}

const insertNotificationSQL = `INSERT INTO notifications (agent_id, event, epoch, relevance_score, summary, unit_id,
	conflict_id, requires_action, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

func notificationArgs(n model.Notification) []any {
	return []any{n.AgentID, n.Event, n.Epoch, n.RelevanceScore, n.Summary, nullable(n.MemoryUnitID),
		nullable(n.ConflictID), n.RequiresAction, fmtTime(n.CreatedAt)}
}

const notificationCols = `id, agent_id, event, epoch, relevance_score, summary, unit_id, conflict_id,
	requires_action, created_at`

// notificationsSQL selects notifications with a WHERE (and ORDER) clause.
func notificationsSQL(where string) string {
	return `SELECT ` + notificationCols + ` FROM notifications ` + where
}

func (t *Tx) notifications(query string, args ...any) ([]model.Notification, error) {
	rows, err := t.query(notificationsSQL(query), args...)
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
	return t.notifications(inboxSQL, agentID, since, limit)
}

const inboxSQL = `WHERE agent_id = ? AND id > ? ORDER BY id LIMIT ?`

// NotificationsOfConflict lists the notifications sent about a conflict.
func (t *Tx) NotificationsOfConflict(conflictID string) ([]model.Notification, error) {
	return t.notifications(notificationsOfConflictSQL, conflictID)
}

const notificationsOfConflictSQL = `WHERE conflict_id = ? ORDER BY id`

// EventAppend adds e to the append-only log and returns its id.
func (t *Tx) EventAppend(e model.Event) (int64, error) {
	var id int64
	err := t.row(insertEventSQL+` RETURNING id`, eventArgs(e)...).Scan(&id)
	return id, err
}

const insertEventSQL = `INSERT INTO events (epoch, operation, agent_id, conflict_id, unit_id, payload, at)
	VALUES (?, ?, ?, ?, ?, ?, ?)`

func eventArgs(e model.Event) []any {
	payload := string(e.Payload)
	if payload == "" {
		payload = "{}"
	}
	return []any{e.Epoch, e.Operation, e.AgentID, nullable(e.ConflictID), nullable(e.UnitID), payload, fmtTime(e.At)}
}

// EventsOfConflict lists the log entries about a conflict, in order.
func (t *Tx) EventsOfConflict(conflictID string) ([]model.Event, error) {
	out := []model.Event{}
	err := t.eachEvent(eventsOfConflictSQL, []any{conflictID},
		func(e model.Event) error {
			out = append(out, e)
			return nil
		})
	return out, err
}

const eventCols = `id, epoch, operation, agent_id, conflict_id, unit_id, payload, at`

const eventsOfConflictSQL = `SELECT ` + eventCols + ` FROM events WHERE conflict_id = ? ORDER BY id`

// eachEvent calls fn with each event a query of eventCols selects; fn's
// error stops it.
func (t *Tx) eachEvent(query string, args []any, fn func(model.Event) error) error {
	rows, err := t.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e model.Event
		var conflict, unit sql.NullString
		var payload, at string
		if err := rows.Scan(&e.ID, &e.Epoch, &e.Operation, &e.AgentID, &conflict, &unit, &payload, &at); err != nil {
			return err
		}
		e.ConflictID, e.UnitID, e.At = strPtr(conflict), strPtr(unit), parseTime(at)
		e.Payload = json.RawMessage(payload)
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// BallotClear removes the ballots of a conflict's earlier vote, when a
// new vote opens on it.
func (t *Tx) BallotClear(conflictID string) error {
	_, err := t.exec(clearBallotsSQL, conflictID)
	return err
}

const clearBallotsSQL = `DELETE FROM votes WHERE conflict_id = ?`

// BallotsOfVoter lists the conflicts put to a vote on which voter has a ballot.
// It walks the pending votes (a few thousand on a large field), not the
// voter's every ballot.
func (t *Tx) BallotsOfVoter(voter string) (map[string]bool, error) {
	ids, err := t.strings(votedOnSQL, voter)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

const votedOnSQL = `SELECT c.id FROM conflicts c WHERE c.status = 'pending_vote'
	AND EXISTS (SELECT 1 FROM votes v WHERE v.conflict_id = c.id AND v.voter_id = ?)`

// NotificationCount is how many notifications the field holds.
func (t *Tx) NotificationCount() (int64, error) {
	var n int64
	err := t.row(`SELECT count(*) FROM notifications`).Scan(&n)
	return n, err
}
