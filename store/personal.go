package store

import (
	"time"

	"arbiter/model"
)

// Personal is what the field keeps for one person at the review screen:
// how far they have read their notices, and the decisions and ballots
// they are writing. Every Tx has it; each engine holds its queries in a
// file of their own (personal.go).
type Personal interface {
	// InboxRecent lists agentID's notices newest first, in the reverse
	// of Inbox's order: those before the notice numbered before (0: from
	// the newest), at most limit (0: all). Like Inbox, it shows only what
	// can no longer be overtaken by a write still running.
	InboxRecent(agentID string, before int64, limit int) ([]model.Notification, error)
	// InboxCount is how many of agentID's notices come after the one
	// numbered after, in Inbox's order (0: all of them).
	InboxCount(agentID string, after int64) (int, error)
	// InboxMark is the notice agentID has read up to (0: none).
	InboxMark(agentID string) (int64, error)
	// InboxMarkSet moves agentID's read mark to their notice id, read at
	// at, unless the mark is there or past it already in Inbox's order:
	// it never goes back.
	InboxMarkSet(agentID string, id int64, at time.Time) error

	// Drafts lists agentID's drafts on conflictID, by form.
	Drafts(agentID, conflictID string) ([]model.Draft, error)
	// DraftPut stores d, replacing the draft of the same person,
	// conflict and form.
	DraftPut(d model.Draft) error
	// DraftDelete removes agentID's draft in form on conflictID, if
	// there is one.
	DraftDelete(agentID, conflictID string, form model.DraftForm) error
}
