package model

import (
	"strings"
	"time"
)

// What the field keeps for one person at the review screen: how far
// they have read their notices, and the decisions and ballots they are
// writing.

// DraftForm is the form a draft is typed in.
type DraftForm string

const (
	// DraftDecide is the decision form: a strategy, a winner, a
	// rationale and, for a synthesis, its text.
	DraftDecide DraftForm = "decide"
	// DraftVote is the ballot: a choice and a rationale.
	DraftVote DraftForm = "vote"
)

// Valid reports whether f is one of the forms.
func (f DraftForm) Valid() bool { return f == DraftDecide || f == DraftVote }

// MaxDraftBytes is the most a draft's rationale or synthesis may hold.
const MaxDraftBytes = 1 << 20

// Draft is a decision or a ballot being written on a conflict, kept in
// the field for one person, conflict and form until it is written or
// dropped, so that a closed session, a killed process or a quit loses
// none of it.
type Draft struct {
	AgentID    string    `json:"agent_id"`
	ConflictID string    `json:"conflict_id"`
	Form       DraftForm `json:"form"`
	// Strategy is the decision's strategy ("" for a ballot).
	Strategy Strategy `json:"strategy,omitempty"`
	// Choice is the unit chosen: the decision's winner, or the ballot's.
	Choice    string    `json:"choice,omitempty"`
	Rationale string    `json:"rationale"`
	Synthesis string    `json:"synthesis,omitempty"`
	SavedAt   time.Time `json:"saved_at"`
}

// Blank reports whether d holds no text: nothing worth keeping.
func (d Draft) Blank() bool {
	return strings.TrimSpace(d.Rationale) == "" && strings.TrimSpace(d.Synthesis) == ""
}

// InboxPage is a page of one person's notices, newest first.
type InboxPage struct {
	Notices []Notification `json:"notices"`
	// Unread is how many of the person's notices came after the last
	// one they read: the first Unread of the newest-first list.
	Unread int `json:"unread"`
	// More: older notices follow the page.
	More bool `json:"more"`
}

// InboxNews is what reached a person's inbox since the newest notice the
// screen had seen.
type InboxNews struct {
	// Tail is the newest notice now: what to ask for news after next.
	Tail int64 `json:"tail"`
	// Unread is how many notices came after the last one read.
	Unread int `json:"unread"`
	// Toasts are the news worth a word at once: something the person
	// took part in closed or changed.
	Toasts []Toast `json:"toasts"`
}

// Toast is one short line about a notice: a vote the person cast
// closed, an escalation they own was decided by someone else, a
// proposal of theirs was approved, modified or not taken.
type Toast struct {
	NotificationID int64  `json:"notification_id"`
	ConflictID     string `json:"conflict_id"`
	Text           string `json:"text"`
}
