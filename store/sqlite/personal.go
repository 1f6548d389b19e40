package sqlite

import (
	"time"

	"arbiter/model"
)

// What the field keeps for each person at the review screen
// (store.Personal): the notice they have read up to, and their drafts.
// A file's notices are numbered in the order they were written, so the
// inbox's order is their ids'.

// InboxRecent lists agentID's notices newest first, before the one
// numbered before (0: from the newest), at most limit (0: all).
func (t *Tx) InboxRecent(agentID string, before int64, limit int) ([]model.Notification, error) {
	if before <= 0 {
		before = 1 << 62
	}
	if limit <= 0 {
		limit = -1
	}
	return t.notifications(inboxRecentSQL, agentID, before, limit)
}

const inboxRecentSQL = `WHERE agent_id = ? AND id < ? ORDER BY id DESC LIMIT ?`

// InboxCount is how many of agentID's notices are numbered above after.
func (t *Tx) InboxCount(agentID string, after int64) (int, error) {
	var n int
	err := t.row(`SELECT count(*) FROM notifications WHERE agent_id = ? AND id > ?`, agentID, after).Scan(&n)
	return n, err
}

// InboxMark is the notice agentID has read up to (0: none).
func (t *Tx) InboxMark(agentID string) (int64, error) {
	var id int64
	err := t.row(`SELECT coalesce(max(notification_id), 0) FROM inbox_read WHERE agent_id = ?`, agentID).Scan(&id)
	return id, err
}

// InboxMarkSet moves agentID's read mark forward to id.
func (t *Tx) InboxMarkSet(agentID string, id int64, at time.Time) error {
	_, err := t.exec(`INSERT INTO inbox_read (agent_id, notification_id, read_at) VALUES (?, ?, ?)
		ON CONFLICT (agent_id) DO UPDATE SET notification_id = excluded.notification_id, read_at = excluded.read_at
		WHERE excluded.notification_id > inbox_read.notification_id`, agentID, id, fmtTime(at))
	return err
}

// Drafts lists agentID's drafts on conflictID, by form.
func (t *Tx) Drafts(agentID, conflictID string) ([]model.Draft, error) {
	rows, err := t.query(`SELECT agent_id, conflict_id, form, strategy, choice, rationale, synthesis, saved_at
		FROM drafts WHERE agent_id = ? AND conflict_id = ? ORDER BY form`, agentID, conflictID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Draft{}
	for rows.Next() {
		var d model.Draft
		var at string
		if err := rows.Scan(&d.AgentID, &d.ConflictID, &d.Form, &d.Strategy, &d.Choice, &d.Rationale, &d.Synthesis, &at); err != nil {
			return nil, err
		}
		d.SavedAt = parseTime(at)
		out = append(out, d)
	}
	return out, rows.Err()
}

// DraftPut stores d over the draft of the same person, conflict and
// form.
func (t *Tx) DraftPut(d model.Draft) error {
	_, err := t.exec(`INSERT INTO drafts (agent_id, conflict_id, form, strategy, choice, rationale, synthesis, saved_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent_id, conflict_id, form) DO UPDATE SET strategy = excluded.strategy, choice = excluded.choice,
			rationale = excluded.rationale, synthesis = excluded.synthesis, saved_at = excluded.saved_at`,
		d.AgentID, d.ConflictID, d.Form, d.Strategy, d.Choice, d.Rationale, d.Synthesis, fmtTime(d.SavedAt))
	return err
}

// DraftDelete removes agentID's draft in form on conflictID.
func (t *Tx) DraftDelete(agentID, conflictID string, form model.DraftForm) error {
	_, err := t.exec(`DELETE FROM drafts WHERE agent_id = ? AND conflict_id = ? AND form = ?`, agentID, conflictID, form)
	return err
}
