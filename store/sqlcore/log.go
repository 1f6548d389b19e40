package sqlcore

import (
	"encoding/json"

	"arbiter/model"
)

// Ballots, notifications and the event log.

// Statements of ballots, notifications and events.
var (
	BallotCols = `conflict_id, voter_id, choice, rationale, epoch, cast_at`
	BallotsSQL = `SELECT ` + BallotCols + ` FROM votes WHERE conflict_id = $1 ORDER BY epoch, voter_id`
	PutBallot  = `INSERT INTO votes (` + BallotCols + `) VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (conflict_id, voter_id) DO UPDATE SET choice = excluded.choice,
		rationale = excluded.rationale, epoch = excluded.epoch, cast_at = excluded.cast_at`
	ClearBallots = `DELETE FROM votes WHERE conflict_id = $1`
	// VotedOnSQL walks the pending votes (a few thousand on a large
	// field), not the voter's every ballot.
	VotedOnSQL = `SELECT c.id FROM conflicts c WHERE c.status = 'pending_vote'
	AND EXISTS (SELECT 1 FROM votes v WHERE v.conflict_id = c.id AND v.voter_id = $1)`

	NotificationCols = `id, agent_id, event, epoch, relevance_score, summary, unit_id, conflict_id,
	requires_action, created_at`
	// NotificationColumns are InsertNotification's columns, in
	// NotificationArgs' order after the id: for INSERT and COPY.
	NotificationColumns = []string{"id", "agent_id", "event", "epoch", "relevance_score", "summary", "unit_id",
		"conflict_id", "requires_action", "created_at"}
	// InsertNotification writes a notification with its id, or, given
	// NULL, the next one.
	InsertNotification = `INSERT INTO notifications (id, agent_id, event, epoch, relevance_score, summary, unit_id,
	conflict_id, requires_action, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
	NotificationsOfConflictSQL = `SELECT ` + NotificationCols + ` FROM notifications WHERE conflict_id = $1 ORDER BY id`

	EventCols = `id, epoch, operation, agent_id, conflict_id, unit_id, payload, at`
	// EventColumns are InsertEvent's columns, in EventArgs' order after
	// the id.
	EventColumns = []string{"id", "epoch", "operation", "agent_id", "conflict_id", "unit_id", "payload", "at"}
	// InsertEvent appends an event with its id, or, given NULL, the next
	// one.
	InsertEvent = `INSERT INTO events (id, epoch, operation, agent_id, conflict_id, unit_id, payload, at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	EventsOfConflictSQL = `SELECT ` + EventCols + ` FROM events WHERE conflict_id = $1 ORDER BY id`
)

// ScanBallot reads BallotCols.
func ScanBallot(r Row) (model.Ballot, error) {
	var b model.Ballot
	var at Time
	err := r.Scan(&b.ConflictID, &b.VoterID, &b.Choice, &b.Rationale, &b.Epoch, &at)
	b.CastAt = at.T
	return b, err
}

// BallotArgs are PutBallot's arguments.
func BallotArgs(b model.Ballot) []any {
	return []any{b.ConflictID, b.VoterID, b.Choice, b.Rationale, b.Epoch, b.CastAt}
}

// Ballots lists the current ballots of a conflict's vote, oldest first.
func (t *Tx) Ballots(conflictID string) ([]model.Ballot, error) {
	return Collect(t.E, BallotsSQL, []any{conflictID}, ScanBallot)
}

// BallotPut casts b, or replaces the voter's earlier ballot.
func (t *Tx) BallotPut(b model.Ballot) error { return t.E.Later(PutBallot, BallotArgs(b), nil) }

// BallotClear removes the ballots of a conflict's earlier vote, when a
// new vote opens on it.
func (t *Tx) BallotClear(conflictID string) error {
	return t.E.Later(ClearBallots, []any{conflictID}, nil)
}

// BallotsOfVoter lists the conflicts put to a vote on which voter has a
// ballot.
func (t *Tx) BallotsOfVoter(voter string) (map[string]bool, error) {
	out := map[string]bool{}
	err := Each(t.E, VotedOnSQL, []any{voter}, func(r Row) error {
		id, err := ScanText(r)
		out[id] = true
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BallotEach yields every ballot by conflict id, then voter id.
func (t *Tx) BallotEach(fn func(model.Ballot) error) error {
	return EachOf(t.E, `SELECT `+BallotCols+` FROM votes ORDER BY conflict_id, voter_id`, nil, ScanBallot, fn)
}

// ScanNotification reads NotificationCols.
func ScanNotification(r Row) (model.Notification, error) {
	var n model.Notification
	var unit, conflict Text
	var at Time
	err := r.Scan(&n.ID, &n.AgentID, &n.Event, &n.Epoch, &n.RelevanceScore, &n.Summary,
		&unit, &conflict, &n.RequiresAction, &at)
	n.MemoryUnitID, n.ConflictID, n.CreatedAt = unit.Ptr(), conflict.Ptr(), at.T
	return n, err
}

// NotificationArgs are InsertNotification's arguments after the id.
func NotificationArgs(n model.Notification) []any {
	return []any{n.AgentID, n.Event, n.Epoch, n.RelevanceScore, n.Summary, n.MemoryUnitID,
		n.ConflictID, n.RequiresAction, n.CreatedAt}
}

// Notifications reads the notifications a query of NotificationCols
// selects.
func Notifications(e Engine, query string, args ...any) ([]model.Notification, error) {
	return Collect(e, query, args, ScanNotification)
}

// NotificationInsert puts n in its agent's outbox and returns its id
// (PostgreSQL takes its ids its own way).
func (t *Tx) NotificationInsert(n model.Notification) (int64, error) {
	var id int64
	err := QueryRow(t.E, InsertNotification+` RETURNING id`, append([]any{nil}, NotificationArgs(n)...)...).Scan(&id)
	return id, err
}

// NotificationsOfConflict lists the notifications sent about a conflict.
func (t *Tx) NotificationsOfConflict(conflictID string) ([]model.Notification, error) {
	return Notifications(t.E, NotificationsOfConflictSQL, conflictID)
}

// NotificationCount is how many notifications the field holds.
func (t *Tx) NotificationCount() (int64, error) {
	var n int64
	err := QueryRow(t.E, `SELECT count(*) FROM notifications`).Scan(&n)
	return n, err
}

// NotificationEach yields every notification by id.
func (t *Tx) NotificationEach(fn func(model.Notification) error) error {
	return EachOf(t.E, `SELECT `+NotificationCols+` FROM notifications ORDER BY id`, nil, ScanNotification, fn)
}

// ScanEvent reads EventCols.
func ScanEvent(r Row) (model.Event, error) {
	var e model.Event
	var conflict, unit Text
	var payload string
	var at Time
	err := r.Scan(&e.ID, &e.Epoch, &e.Operation, &e.AgentID, &conflict, &unit, &payload, &at)
	e.ConflictID, e.UnitID, e.At, e.Payload = conflict.Ptr(), unit.Ptr(), at.T, json.RawMessage(payload)
	return e, err
}

// EventArgs are InsertEvent's arguments after the id.
func EventArgs(e model.Event) []any {
	payload := string(e.Payload)
	if payload == "" {
		payload = "{}"
	}
	return []any{e.Epoch, e.Operation, e.AgentID, e.ConflictID, e.UnitID, payload, e.At}
}

// EventAppend adds e to the append-only log and returns its id
// (PostgreSQL takes its ids its own way).
func (t *Tx) EventAppend(e model.Event) (int64, error) {
	var id int64
	err := QueryRow(t.E, InsertEvent+` RETURNING id`, append([]any{nil}, EventArgs(e)...)...).Scan(&id)
	return id, err
}

// EventsOfConflict lists the log entries about a conflict, in order.
func (t *Tx) EventsOfConflict(conflictID string) ([]model.Event, error) {
	return Collect(t.E, EventsOfConflictSQL, []any{conflictID}, ScanEvent)
}

// DecisionEach calls fn with every MERGE and VOTE event of the log, oldest
// first; fn's error stops the walk and is returned.
func (t *Tx) DecisionEach(fn func(model.Event) error) error {
	return EachOf(t.E, `SELECT `+EventCols+` FROM events WHERE operation IN ('MERGE', 'VOTE') ORDER BY id`, nil, ScanEvent, fn)
}

// EventEach yields every event by id.
func (t *Tx) EventEach(fn func(model.Event) error) error {
	return EachOf(t.E, `SELECT `+EventCols+` FROM events ORDER BY id`, nil, ScanEvent, fn)
}

// MessageApplied reports whether a decision carried by the message with
// this id was already applied to conflictID: the MERGE or VOTE event that
// applied it keeps the id as payload.message_id.
func (t *Tx) MessageApplied(conflictID, messageID string) (bool, error) {
	var found bool
	err := QueryRow(t.E, `SELECT EXISTS (SELECT 1 FROM events WHERE conflict_id = $1 AND operation IN ('MERGE', 'VOTE')
		AND payload ->> 'message_id' = $2)`, conflictID, messageID).Scan(&found)
	return found, err
}
