package model

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event names (spec §6.7), plus arbiter's for votes.
const (
	EventMemoryRecorded    = "memory.recorded"
	EventMemorySuperseded  = "memory.superseded"
	EventMemoryContested   = "memory.contested"
	EventConflictDetected  = "conflict.detected"
	EventConflictResolved  = "conflict.resolved"
	EventConflictEscalated = "conflict.escalated"
	EventVoteOpened        = "conflict.vote_opened"
	EventVoteCast          = "conflict.vote_cast"
	EventVoteClosed        = "conflict.vote_closed"
	EventConflictReopened  = "conflict.reopened"
	// EventConflictRework: the conflict is sent back to its authors; the
	// summary is the directive.
	EventConflictRework = "conflict.rework"
	// EventConflictReminder: a fifth of the time it waits for you is left.
	EventConflictReminder = "conflict.reminder"
	// EventConflictOverdue: its deadline passed and nothing executes.
	EventConflictOverdue = "conflict.overdue"
	// EventConflictTimeout: its deadline passed and its fallback executed.
	EventConflictTimeout = "conflict.timeout"
	// EventPolicyChanged: a human operator changed the field's policy.
	EventPolicyChanged = "policy.changed"
)

// Notification is a message waiting in one agent's outbox.
type Notification struct {
	ID             int64     `json:"id"`
	AgentID        string    `json:"agent_id"`
	Event          string    `json:"event"`
	Epoch          int64     `json:"epoch"`
	RelevanceScore float64   `json:"relevance_score"`
	Summary        string    `json:"summary"`
	MemoryUnitID   *string   `json:"memory_unit_id"`
	ConflictID     *string   `json:"conflict_id"`
	RequiresAction bool      `json:"requires_action"`
	CreatedAt      time.Time `json:"created_at"`
}

// Event is one entry of the field's append-only log.
type Event struct {
	ID         int64           `json:"id"`
	Epoch      int64           `json:"epoch"`
	Operation  string          `json:"operation"`
	AgentID    string          `json:"agent_id"`
	ConflictID *string         `json:"conflict_id,omitempty"`
	UnitID     *string         `json:"unit_id,omitempty"`
	Payload    json.RawMessage `json:"payload,omitempty"`
	At         time.Time       `json:"at"`
}

// Ptr returns a pointer to v; handy for the nullable fields above.
func Ptr[T any](v T) *T { return &v }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
