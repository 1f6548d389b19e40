package sqlcore

import (
	"arbiter/model"
)

// What the field keeps for each person at the review screen
// (store.Personal): the notice they have read up to, and their drafts.
// The inbox's order is each engine's (its Inbox), so the newest-first
// list, the count after a notice and the moving of the read mark are the
// engines' own.

// InboxMark is the notice agentID has read up to (0: none).
func (t *Tx) InboxMark(agentID string) (int64, error) {
	var id int64
	err := QueryRow(t.E, `SELECT coalesce(max(notification_id), 0) FROM inbox_read WHERE agent_id = $1`, agentID).Scan(&id)
	return id, err
}

const draftCols = `agent_id, conflict_id, form, strategy, choice, rationale, synthesis, saved_at`

func scanDraft(r Row) (model.Draft, error) {
	var d model.Draft
	var form, strategy string
	var at Time
	err := r.Scan(&d.AgentID, &d.ConflictID, &form, &strategy, &d.Choice, &d.Rationale, &d.Synthesis, &at)
	d.Form, d.Strategy, d.SavedAt = model.DraftForm(form), model.Strategy(strategy), at.T
	return d, err
}

// Drafts lists agentID's drafts on conflictID, by form.
func (t *Tx) Drafts(agentID, conflictID string) ([]model.Draft, error) {
	return Collect(t.E, `SELECT `+draftCols+` FROM drafts WHERE agent_id = $1 AND conflict_id = $2 ORDER BY form`,
		[]any{agentID, conflictID}, scanDraft)
}

// DraftPut stores d over the draft of the same person, conflict and
// form.
func (t *Tx) DraftPut(d model.Draft) error {
	return t.exec(`INSERT INTO drafts (`+draftCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (agent_id, conflict_id, form) DO UPDATE SET strategy = excluded.strategy, choice = excluded.choice,
			rationale = excluded.rationale, synthesis = excluded.synthesis, saved_at = excluded.saved_at`,
		d.AgentID, d.ConflictID, string(d.Form), string(d.Strategy), d.Choice, d.Rationale, d.Synthesis, d.SavedAt)
}

// DraftDelete removes agentID's draft in form on conflictID.
func (t *Tx) DraftDelete(agentID, conflictID string, form model.DraftForm) error {
	return t.exec(`DELETE FROM drafts WHERE agent_id = $1 AND conflict_id = $2 AND form = $3`, agentID, conflictID, string(form))
}
