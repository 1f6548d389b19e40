package model

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
