package model

import (
	"slices"
	"time"
)

// ConflictType classifies what two units disagree about.
type ConflictType string

const (
	ConflictFactual      ConflictType = "factual"
	ConflictInterpretive ConflictType = "interpretive"
	ConflictStrategic    ConflictType = "strategic"
	ConflictPriority     ConflictType = "priority"
)

// ConflictTypes lists every conflict type.
var ConflictTypes = []ConflictType{ConflictFactual, ConflictInterpretive, ConflictStrategic, ConflictPriority}

// Valid reports whether t is a known conflict type.
func (t ConflictType) Valid() bool { return slices.Contains(ConflictTypes, t) }

// ConflictStatus is where a conflict stands. pending_vote is kept as a
// status of its own (the protocol names it only in MERGE's response).
type ConflictStatus string

const (
	StatusDetected    ConflictStatus = "detected"
	StatusResolving   ConflictStatus = "resolving"
	StatusResolved    ConflictStatus = "resolved"
	StatusEscalated   ConflictStatus = "escalated"
	StatusPendingVote ConflictStatus = "pending_vote"
)

// ConflictStatuses lists every conflict status.
var ConflictStatuses = []ConflictStatus{StatusDetected, StatusResolving, StatusResolved, StatusEscalated, StatusPendingVote}

// Valid reports whether s is a known conflict status.
func (s ConflictStatus) Valid() bool { return slices.Contains(ConflictStatuses, s) }

// Open reports whether the conflict still waits for a decision.
func (s ConflictStatus) Open() bool { return s != StatusResolved }

// DetectedBy says how a conflict was found.
type DetectedBy string

const (
	DetectedExplicit DetectedBy = "explicit"
	DetectedSemantic DetectedBy = "semantic"
	DetectedLogical  DetectedBy = "logical"
	DetectedTemporal DetectedBy = "temporal"
)

// Valid reports whether d is a known detection method.
func (d DetectedBy) Valid() bool {
	return slices.Contains([]DetectedBy{DetectedExplicit, DetectedSemantic, DetectedLogical, DetectedTemporal}, d)
}

// Escalation records who sent a conflict to people, and why.
type Escalation struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	Epoch  int64     `json:"epoch"`
	At     time.Time `json:"at"`
}

// Resolution is how a conflict was settled.
type Resolution struct {
	Strategy        Strategy  `json:"strategy"`
	WinnerID        *string   `json:"winner_id"`
	SynthesisUnitID *string   `json:"synthesis_unit_id,omitempty"`
	Rationale       string    `json:"rationale"`
	ResolvedBy      string    `json:"resolved_by"`
	EpochResolved   int64     `json:"epoch_resolved"`
	ResolvedAt      time.Time `json:"resolved_at"`
}

// Conflict is a recorded contradiction between two units.
//
// Version grows by one with every change of status or resolution; a
// decision names the version its author saw, and a stale one is refused.
type Conflict struct {
	ID          string         `json:"id"`
	Type        ConflictType   `json:"type"`
	Status      ConflictStatus `json:"status"`
	UnitA       string         `json:"unit_a"`
	UnitB       string         `json:"unit_b"`
	Description string         `json:"description"`
	DetectedBy  DetectedBy     `json:"detected_by"`
	DetectedAt  time.Time      `json:"detected_at"`
	Epoch       int64          `json:"epoch"`
	Version     int64          `json:"version"`
	Escalation  *Escalation    `json:"escalation,omitempty"`
	VoteOpened  *Escalation    `json:"vote_opened,omitempty"`
	// Rework is who sent the conflict back to its authors and the
	// directive they were given (status resolving).
	Rework *Escalation `json:"rework,omitempty"`
	// Route is who the conflict waits for and until when, while it is
	// escalated, put to a vote or sent back for rework.
	Route *Route `json:"route,omitempty"`
	// Proposal is what the agent who escalated it would do.
	Proposal *Proposal `json:"proposal,omitempty"`
	// ReworkOf is the conflict this one continues: an author's revision
	// that still contradicts the other unit.
	ReworkOf   string      `json:"rework_of,omitempty"`
	Resolution *Resolution `json:"resolution,omitempty"`
	// Detection is why the field found the contradiction itself, when
	// nobody declared it (arbiter's; nil for a contradicts relation).
	Detection *Detection `json:"detection,omitempty"`
}

// Other returns the unit of the pair that is not id, and whether id belongs
// to the conflict at all.
func (c Conflict) Other(id string) (string, bool) {
	switch id {
	case c.UnitA:
		return c.UnitB, true
	case c.UnitB:
		return c.UnitA, true
	}
	return "", false
}

// Side returns "A" or "B" for a unit of the conflict, "" otherwise.
func (c Conflict) Side(id string) string {
	switch id {
	case c.UnitA:
		return "A"
	case c.UnitB:
		return "B"
	}
	return ""
}
