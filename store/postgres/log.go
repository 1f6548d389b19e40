package postgres

import (
	"encoding/json"
	"time"

	"arbiter/model"

	"github.com/jackc/pgx/v5"
)

// Ballots lists the current ballots of a conflict's vote, oldest first.
func (t *Tx) Ballots(conflictID string) ([]model.Ballot, error) {
	return t.ballots(`SELECT conflict_id, voter_id, choice, rationale, epoch, cast_at
		FROM votes WHERE conflict_id = $1 ORDER BY epoch, voter_id`, conflictID)
}

func (t *Tx) ballots(query string, args ...any) ([]model.Ballot, error) {
	out := []model.Ballot{}
	err := t.eachBallot(query, args, func(b model.Ballot) error {
		out = append(out, b)
		return nil
	})
	return out, err
}

func (t *Tx) eachBallot(query string, args []any, fn func(model.Ballot) error) error {
	rows, err := t.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var b model.Ballot
		var at time.Time
		if err := rows.Scan(&b.ConflictID, &b.VoterID, &b.Choice, &b.Rationale, &b.Epoch, &at); err != nil {
			return err
		}
		b.CastAt = at.UTC()
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}

// BallotPut casts b, or replaces the voter's earlier ballot.
func (t *Tx) BallotPut(b model.Ballot) error {
	t.later(putBallotSQL, []any{b.ConflictID, b.VoterID, b.Choice, b.Rationale, b.Epoch, b.CastAt}, nil)
	return nil
}

const putBallotSQL = `INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at)
	VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (conflict_id, voter_id) DO UPDATE SET choice = excluded.choice,
		rationale = excluded.rationale, epoch = excluded.epoch, cast_at = excluded.cast_at`

// BallotClear removes the ballots of a conflict's earlier vote.
func (t *Tx) BallotClear(conflictID string) error {
	t.later(`DELETE FROM votes WHERE conflict_id = $1`, []any{conflictID}, nil)
	return nil
}

// BallotsOfVoter lists the conflicts put to a vote on which voter has a ballot.
func (t *Tx) BallotsOfVoter(voter string) (map[string]bool, error) {
	ids, err := t.strings(`SELECT c.id FROM conflicts c WHERE c.status = 'pending_vote'
		AND EXISTS (SELECT 1 FROM votes v WHERE v.conflict_id = c.id AND v.voter_id = $1)`, voter)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// NotificationInsert puts n in its agent's outbox and returns its id: one
// of the sequence's, growing within the write.
func (t *Tx) NotificationInsert(n model.Notification) (int64, error) {
	if len(t.notes) == 0 {
		// A write that notifies mostly notifies several agents: their
		// ids in one round trip. One it does not use is a gap no outbox
		// shows, since each agent's holds ids of every agent's.
		rows, err := t.query(`SELECT next_number('notifications') FROM generate_series(1, $1::int)`, noteBlock)
		if err != nil {
			return 0, err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return 0, err
		}
		t.notes = ids
	}
	id := t.notes[0]
	t.notes = t.notes[1:]
	t.later(`INSERT INTO notifications (id, agent_id, event, epoch, relevance_score, summary, unit_id,
		conflict_id, requires_action, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		append([]any{id}, notificationArgs(n)...), nil)
	return id, nil
}

// noteBlock is how many notification ids a write takes at a time.
const noteBlock = 4

var notificationColumns = []string{"agent_id", "event", "epoch", "relevance_score", "summary", "unit_id",
	"conflict_id", "requires_action", "created_at"}

func notificationArgs(n model.Notification) []any {
	return []any{n.AgentID, n.Event, n.Epoch, n.RelevanceScore, n.Summary, n.MemoryUnitID,
		n.ConflictID, n.RequiresAction, n.CreatedAt}
}

const notificationCols = `id, agent_id, event, epoch, relevance_score, summary, unit_id, conflict_id,
	requires_action, created_at`

func (t *Tx) eachNotification(where string, args []any, fn func(model.Notification) error) error {
	rows, err := t.query(`SELECT `+notificationCols+` FROM notifications `+where, args...)
	if err != nil {
		return err
	}
	return scanNotifications(rows, fn)
}

// scanNotifications gives fn each notification of rows, and closes them.
func scanNotifications(rows pgx.Rows, fn func(model.Notification) error) error {
	defer rows.Close()
	for rows.Next() {
		var n model.Notification
		var at time.Time
		if err := rows.Scan(&n.ID, &n.AgentID, &n.Event, &n.Epoch, &n.RelevanceScore, &n.Summary,
			&n.MemoryUnitID, &n.ConflictID, &n.RequiresAction, &at); err != nil {
			return err
		}
		n.CreatedAt = at.UTC()
		if err := fn(n); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (t *Tx) notifications(where string, args ...any) ([]model.Notification, error) {
	out := []model.Notification{}
	err := t.eachNotification(where, args, func(n model.Notification) error {
		out = append(out, n)
		return nil
	})
	return out, err
}

// Inbox lists an agent's notifications after the one numbered since,
// oldest first, at most limit (0: all).
//
// Writes commit in parallel and take ids as they go, so a notification
// with a smaller id may commit after one with a larger. The outbox is
// read in the order of (writing transaction, id), and only below the
// oldest write of the field still running (inbox_page and the horizons
// in the schema): nothing can appear there any more, so what was read
// once stays where it was, and the next read after it misses nothing.
// since names a notification of the agent's (its place in that order);
// 0, or a number that is none of the agent's, reads from the first
// notification numbered above it.
//
// Read first in its transaction, the page is read before the
// transaction's snapshot, at READ COMMITTED, where it sees every commit
// up to then, the reader's own among them; read after something else, in
// the transaction's snapshot, it may stop short of a write that ended
// while that snapshot was taken (the next read takes it).
func (t *Tx) Inbox(agentID string, since int64, limit int) ([]model.Notification, error) {
	sql := `SELECT ` + notificationCols + ` FROM inbox_page($1, $2, $3) notifications`
	var rows pgx.Rows
	var err error
	if t.begun || t.write {
		rows, err = t.query(sql, agentID, since, limit)
	} else {
		rows, err = t.queryAhead(sql, agentID, since, limit)
	}
	if err != nil {
		return nil, err
	}
	out := []model.Notification{}
	err = scanNotifications(rows, func(n model.Notification) error {
		out = append(out, n)
		return nil
	})
	return out, err
}

// NotificationsOfConflict lists the notifications sent about a conflict.
func (t *Tx) NotificationsOfConflict(conflictID string) ([]model.Notification, error) {
	return t.notifications(`WHERE conflict_id = $1 ORDER BY id`, conflictID)
}

// EventAppend adds e to the append-only log and returns its id (the
// next of the sequence).
func (t *Tx) EventAppend(e model.Event) (int64, error) {
	id := t.event
	t.event = 0
	var err error
	if id == 0 {
		id, err = t.nextSeq("events")
	}
	if err != nil {
		return 0, err
	}
	t.later(`INSERT INTO events (id, epoch, operation, agent_id, conflict_id, unit_id, payload, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, append([]any{id}, eventArgs(e)...), nil)
	return id, nil
}

var eventColumns = []string{"epoch", "operation", "agent_id", "conflict_id", "unit_id", "payload", "at"}

func eventArgs(e model.Event) []any {
	payload := string(e.Payload)
	if payload == "" {
		payload = "{}"
	}
	return []any{e.Epoch, e.Operation, e.AgentID, e.ConflictID, e.UnitID, payload, e.At}
}

const eventCols = `id, epoch, operation, agent_id, conflict_id, unit_id, payload, at`

func (t *Tx) eachEvent(query string, args []any, fn func(model.Event) error) error {
	rows, err := t.query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e model.Event
		var payload string
		var at time.Time
		if err := rows.Scan(&e.ID, &e.Epoch, &e.Operation, &e.AgentID, &e.ConflictID, &e.UnitID, &payload, &at); err != nil {
			return err
		}
		e.At, e.Payload = at.UTC(), json.RawMessage(payload)
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// EventsOfConflict lists the log entries about a conflict, in order.
func (t *Tx) EventsOfConflict(conflictID string) ([]model.Event, error) {
	out := []model.Event{}
	err := t.eachEvent(`SELECT `+eventCols+` FROM events WHERE conflict_id = $1 ORDER BY id`, []any{conflictID},
		func(e model.Event) error {
			out = append(out, e)
			return nil
		})
	return out, err
}

// DecisionEach calls fn with every MERGE and VOTE event of the log,
// oldest first; fn's error stops the walk and is returned.
func (t *Tx) DecisionEach(fn func(model.Event) error) error {
	return t.eachEvent(`SELECT `+eventCols+` FROM events WHERE operation IN ('MERGE', 'VOTE') ORDER BY id`, nil, fn)
}

// MessageApplied reports whether a decision carried by the message with
// this id was already applied to conflictID (payload.message_id).
func (t *Tx) MessageApplied(conflictID, messageID string) (bool, error) {
	var found bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM events WHERE conflict_id = $1 AND operation IN ('MERGE', 'VOTE')
		AND payload->>'message_id' = $2)`, conflictID, messageID).Scan(&found)
	return found, err
}

// NotificationCount is how many notifications the field holds.
func (t *Tx) NotificationCount() (int64, error) {
	var n int64
	err := t.row(`SELECT count(*) FROM notifications`).Scan(&n)
	return n, err
}
