package postgres

import (
	"time"

	"arbiter/model"
)

// What the field keeps for each person at the review screen
// (store.Personal): the notice they have read up to, and their drafts.
//
// The inbox's order is (writing transaction, id), read below the oldest
// write still running (log.go, Inbox): the newest-first list and the
// count of what came after a notice read in that order and below that
// horizon, so that a notice read as the newest one shown is never passed
// by one that commits later.

// afterNotice is true of a notification n that comes after the agent's
// ($1) notice numbered by the parameter p in the inbox's order; a number
// that is none of the agent's compares by id.
func afterNotice(p string) string {
	return `coalesce((n.xid, n.id) > ((SELECT m.xid FROM notifications m WHERE m.agent_id = $1 AND m.id = ` + p + `), ` + p + `), n.id > ` + p + `)`
}

// InboxRecent lists agentID's notices newest first, before the one
// numbered before (0: from the newest), at most limit (0: all).
func (t *Tx) InboxRecent(agentID string, before int64, limit int) ([]model.Notification, error) {
	return t.notifications(`n WHERE n.agent_id = $1 AND n.xid < (SELECT tail_horizon())
		AND ($2::bigint <= 0 OR NOT `+afterNotice("$2")+` AND n.id <> $2)
		ORDER BY n.xid DESC, n.id DESC LIMIT CASE WHEN $3::int > 0 THEN $3::int END`, agentID, before, limit)
}

// InboxCount is how many of agentID's notices come after the one
// numbered after.
func (t *Tx) InboxCount(agentID string, after int64) (int, error) {
	var n int
	err := t.row(`SELECT count(*) FROM notifications n WHERE n.agent_id = $1 AND n.xid < (SELECT tail_horizon())
		AND ($2::bigint <= 0 OR `+afterNotice("$2")+`)`, agentID, after).Scan(&n)
	return n, err
}

// InboxMark is the notice agentID has read up to (0: none).
func (t *Tx) InboxMark(agentID string) (int64, error) {
	var id int64
	err := t.row(`SELECT coalesce(max(notification_id), 0) FROM inbox_read WHERE agent_id = $1`, agentID).Scan(&id)
	return id, err
}

// InboxMarkSet moves agentID's read mark forward to id, in the inbox's
// order.
func (t *Tx) InboxMarkSet(agentID string, id int64, at time.Time) error {
	_, err := t.exec(`INSERT INTO inbox_read (agent_id, notification_id, read_at) VALUES ($1, $2, $3)
		ON CONFLICT (agent_id) DO UPDATE SET notification_id = excluded.notification_id, read_at = excluded.read_at
		WHERE coalesce((SELECT (m.xid, m.id) > (o.xid, o.id) FROM notifications o, notifications m
				WHERE o.agent_id = $1 AND o.id = inbox_read.notification_id AND m.agent_id = $1 AND m.id = $2),
			excluded.notification_id > inbox_read.notification_id)`, agentID, id, at)
	return err
}

// Drafts lists agentID's drafts on conflictID, by form.
func (t *Tx) Drafts(agentID, conflictID string) ([]model.Draft, error) {
	rows, err := t.query(`SELECT agent_id, conflict_id, form, strategy, choice, rationale, synthesis, saved_at
		FROM drafts WHERE agent_id = $1 AND conflict_id = $2 ORDER BY form`, agentID, conflictID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Draft{}
	for rows.Next() {
		var d model.Draft
		var form, strategy string
		if err := rows.Scan(&d.AgentID, &d.ConflictID, &form, &strategy, &d.Choice, &d.Rationale, &d.Synthesis, &d.SavedAt); err != nil {
			return nil, err
		}
		d.Form, d.Strategy, d.SavedAt = model.DraftForm(form), model.Strategy(strategy), d.SavedAt.UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}

// DraftPut stores d over the draft of the same person, conflict and
// form.
func (t *Tx) DraftPut(d model.Draft) error {
	_, err := t.exec(`INSERT INTO drafts (agent_id, conflict_id, form, strategy, choice, rationale, synthesis, saved_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (agent_id, conflict_id, form) DO UPDATE SET strategy = excluded.strategy, choice = excluded.choice,
			rationale = excluded.rationale, synthesis = excluded.synthesis, saved_at = excluded.saved_at`,
		d.AgentID, d.ConflictID, string(d.Form), string(d.Strategy), d.Choice, d.Rationale, d.Synthesis, d.SavedAt)
	return err
}

// DraftDelete removes agentID's draft in form on conflictID.
func (t *Tx) DraftDelete(agentID, conflictID string, form model.DraftForm) error {
	_, err := t.exec(`DELETE FROM drafts WHERE agent_id = $1 AND conflict_id = $2 AND form = $3`, agentID, conflictID, string(form))
	return err
}
