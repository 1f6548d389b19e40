package model

import "time"

// RecordRequest is an Akashik RECORD payload.
type RecordRequest struct {
	Mode       Mode       `json:"mode"`
	Type       UnitType   `json:"type"`
	Content    string     `json:"content"`
	Intent     Intent     `json:"intent"`
	Confidence Confidence `json:"confidence"`
	Relations  []Relation `json:"relations"`
	SessionID  *string    `json:"session_id,omitempty"`
	// ConflictType classifies any conflict a contradicts relation opens
	// (arbiter's; factual when empty).
	ConflictType ConflictType `json:"conflict_type,omitempty"`
}

// RecordResult is what RECORD returns.
type RecordResult struct {
	UnitID    string     `json:"unit_id"`
	Epoch     int64      `json:"epoch"`
	Conflicts []Conflict `json:"conflicts_opened"`
}

// MergeRequest is an Akashik MERGE payload, plus the conflict version the
// caller saw (0: not checked).
type MergeRequest struct {
	ConflictID      string          `json:"conflict_id"`
	Strategy        Strategy        `json:"strategy"`
	Resolution      MergeResolution `json:"resolution"`
	ExpectedVersion int64           `json:"expected_version,omitempty"`
	// Routing is who an escalation goes to and until when, or a vote's
	// deadline (arbiter's; human_escalation and vote only). Empty parts
	// take the field's policy.
	Routing *Routing `json:"routing,omitempty"`
	// Proposal is what the escalating agent would do (arbiter's;
	// human_escalation only).
	Proposal *Proposed `json:"proposal,omitempty"`
}

// Proposed is what an agent escalating a conflict would do: keep one unit
// (WinnerID) or replace both with a synthesis (Synthesis); one of them.
type Proposed struct {
	WinnerID  *string `json:"winner_id,omitempty"`
	Synthesis *string `json:"synthesis,omitempty"`
}

// MergeResolution is the decision part of a MERGE request.
type MergeResolution struct {
	WinnerID  *string `json:"winner_id"`
	Synthesis *string `json:"synthesis"`
	Rationale string  `json:"rationale"`
}

// SideEffects lists what a MERGE changed besides the conflict.
type SideEffects struct {
	SupersededUnits []string `json:"superseded_units"`
	NewUnitID       *string  `json:"new_unit_id"`
	NotifiedAgents  []string `json:"notified_agents"`
}

// MergeResponse is MERGE's answer (spec §6.6).
type MergeResponse struct {
	Status      ConflictStatus `json:"status"`
	Conflict    Conflict       `json:"conflict"`
	SideEffects SideEffects    `json:"side_effects"`
	// Offline is set when the decision went to a decisions file instead
	// of the field: Status and SideEffects are then what the field would
	// become once it is applied.
	Offline *OfflineRecord `json:"offline,omitempty"`
}

// ReopenRequest takes back the decision that resolved a conflict.
type ReopenRequest struct {
	ConflictID      string `json:"conflict_id"`
	Rationale       string `json:"rationale"`
	ExpectedVersion int64  `json:"expected_version,omitempty"`
}

// ReopenResponse says what taking a decision back changed.
type ReopenResponse struct {
	Conflict Conflict `json:"conflict"`
	ReopenEffects
}

// ReopenEffects is what taking a decision back did besides reopening the
// conflict.
type ReopenEffects struct {
	// Undone is the resolution taken back.
	Undone Resolution `json:"undone"`
	// Restored lists the units the decision had superseded, standing
	// again (contested, as the conflict is open).
	Restored []string `json:"restored_units"`
	// Retracted is the synthesis unit the decision had created.
	Retracted      *string  `json:"retracted_unit"`
	NotifiedAgents []string `json:"notified_agents"`
}

// VoteRequest casts or changes a vote on a pending_vote conflict.
type VoteRequest struct {
	ConflictID      string `json:"conflict_id"`
	Choice          string `json:"choice"`
	Rationale       string `json:"rationale"`
	ExpectedVersion int64  `json:"expected_version,omitempty"`
}

// VoteResponse is the vote's effect: the tally after it, and, when the
// vote closed the conflict, MERGE's response.
type VoteResponse struct {
	Status   ConflictStatus `json:"status"`
	Conflict Conflict       `json:"conflict"`
	Tally    Tally          `json:"tally"`
	Ballots  []Ballot       `json:"ballots"`
	Changed  bool           `json:"changed"`
	// Unchanged says the caller cast the very ballot they had cast
	// before (the same unit, the same rationale): nothing was written.
	Unchanged   bool        `json:"unchanged"`
	Closed      bool        `json:"closed"`
	SideEffects SideEffects `json:"side_effects"`
	// Offline is set when the ballot went to a decisions file instead of
	// the field (see MergeResponse.Offline).
	Offline *OfflineRecord `json:"offline,omitempty"`
}

// ReworkRequest sends a conflict back to the authors of its units, with
// the rationale as their directive (arbiter's REWORK). Deadline and
// Fallback bound the revision as an escalation's are bounded; empty ones
// take the field's policy (a rework's fallback is never rework).
type ReworkRequest struct {
	ConflictID      string   `json:"conflict_id"`
	Rationale       string   `json:"rationale"`
	Deadline        string   `json:"deadline,omitempty"`
	Fallback        Fallback `json:"fallback,omitempty"`
	ExpectedVersion int64    `json:"expected_version,omitempty"`
}

// ReworkResponse says what sending a conflict back changed.
type ReworkResponse struct {
	Status         ConflictStatus `json:"status"`
	Conflict       Conflict       `json:"conflict"`
	NotifiedAgents []string       `json:"notified_agents"`
}

// Sweep kinds: what a sweep did about one conflict.
const (
	SweepReminder = "reminder" // a fifth of the time left: the owner was reminded
	SweepOverdue  = "overdue"  // the deadline passed without a fallback: the owner was told
	SweepFallback = "fallback" // the deadline passed: the fallback (or a vote's majority) executed
)

// SweepAction is one thing a sweep did.
type SweepAction struct {
	ConflictID string `json:"conflict_id"`
	// Kind is SweepReminder, SweepOverdue or SweepFallback.
	Kind string `json:"kind"`
	// Fallback is the route's fallback ("" for none).
	Fallback Fallback `json:"fallback,omitempty"`
	// Status is the conflict's status afterwards.
	Status ConflictStatus `json:"status"`
	// Strategy and WinnerID are the resolution a fallback wrote, if any.
	Strategy Strategy `json:"strategy,omitempty"`
	WinnerID *string  `json:"winner_id,omitempty"`
	// Owner is who the conflict is routed to afterwards ("" for any
	// human operator, or none).
	Owner string `json:"owner,omitempty"`
	// Result says in one sentence what happened.
	Result         string   `json:"result"`
	NotifiedAgents []string `json:"notified_agents"`
	Epoch          int64    `json:"epoch"`
}

// SweepReport is what one sweep of the field's deadlines did.
type SweepReport struct {
	At      time.Time     `json:"at"`
	Actions []SweepAction `json:"actions"`
	// Held are the decisions held in their undo window on a screen that
	// ended before writing them, carried out by the sweep.
	Held []HeldOutcome `json:"held,omitempty"`
}
