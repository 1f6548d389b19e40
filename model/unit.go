package model

import (
	"slices"
	"time"
)

// Mode says whether a unit is a draft or committed (immutable).
type Mode string

const (
	ModeDraft     Mode = "draft"
	ModeCommitted Mode = "committed"
)

// UnitType is the kind of claim a memory unit makes.
type UnitType string

const (
	TypeFinding        UnitType = "finding"
	TypeDecision       UnitType = "decision"
	TypeObservation    UnitType = "observation"
	TypeIntention      UnitType = "intention"
	TypeAssumption     UnitType = "assumption"
	TypeConstraint     UnitType = "constraint"
	TypeQuestion       UnitType = "question"
	TypeContradiction  UnitType = "contradiction"
	TypeSynthesis      UnitType = "synthesis"
	TypeCorrection     UnitType = "correction"
	TypeHumanDirective UnitType = "human_directive"
)

// UnitTypes lists every unit type the field accepts.
var UnitTypes = []UnitType{
	TypeFinding, TypeDecision, TypeObservation, TypeIntention, TypeAssumption,
	TypeConstraint, TypeQuestion, TypeContradiction, TypeSynthesis, TypeCorrection,
	TypeHumanDirective,
}

// Valid reports whether t is a known unit type.
func (t UnitType) Valid() bool { return slices.Contains(UnitTypes, t) }

// UnitStatus is where a unit stands in its lifecycle.
type UnitStatus string

const (
	UnitActive            UnitStatus = "active"
	UnitDraft             UnitStatus = "draft"
	UnitSuperseded        UnitStatus = "superseded"
	UnitRetracted         UnitStatus = "retracted"
	UnitContested         UnitStatus = "contested"
	UnitPendingEnrichment UnitStatus = "pending_enrichment"
)

// UnitStatuses lists every unit status.
var UnitStatuses = []UnitStatus{
	UnitActive, UnitDraft, UnitSuperseded, UnitRetracted, UnitContested, UnitPendingEnrichment,
}

// Stands reports whether a unit in status s still stands in the field:
// it is not superseded and not retracted, so it may still prevail in a
// conflict, and contradicting it opens one.
func (s UnitStatus) Stands() bool { return s != UnitSuperseded && s != UnitRetracted }

// Valid reports whether s is a known unit status.
func (s UnitStatus) Valid() bool { return slices.Contains(UnitStatuses, s) }

// RelationType names how one unit relates to another.
type RelationType string

const (
	RelSupports    RelationType = "supports"
	RelContradicts RelationType = "contradicts"
	RelDependsOn   RelationType = "depends_on"
	RelSupersedes  RelationType = "supersedes"
	RelCausedBy    RelationType = "caused_by"
	RelElaborates  RelationType = "elaborates"
	RelAnswers     RelationType = "answers"
	RelBlocks      RelationType = "blocks"
	RelInforms     RelationType = "informs"
)

// RelationTypes lists every relation type.
var RelationTypes = []RelationType{
	RelSupports, RelContradicts, RelDependsOn, RelSupersedes, RelCausedBy,
	RelElaborates, RelAnswers, RelBlocks, RelInforms,
}

// Valid reports whether r is a known relation type.
func (r RelationType) Valid() bool { return slices.Contains(RelationTypes, r) }

// Intent says why a unit was recorded.
type Intent struct {
	Purpose  string  `json:"purpose"`
	TaskID   *string `json:"task_id"`
	Question *string `json:"question"`
}

// Confidence is how sure the recording agent is, and why.
type Confidence struct {
	Score       *float64 `json:"score"`
	Reasoning   string   `json:"reasoning,omitempty"`
	Evidence    []string `json:"evidence"`
	Assumptions []string `json:"assumptions"`
}

// ScoreOr returns the score, or def when none was given.
func (c Confidence) ScoreOr(def float64) float64 {
	if c.Score == nil {
		return def
	}
	return *c.Score
}

// Source is who recorded a unit and when; the field sets it, never the caller.
type Source struct {
	AgentID   string    `json:"agent_id"`
	AgentRole string    `json:"agent_role"`
	SessionID *string   `json:"session_id"`
	Timestamp time.Time `json:"timestamp"`
}

// Relation links a unit to another.
type Relation struct {
	Type        RelationType `json:"type"`
	TargetID    string       `json:"target_id"`
	Description string       `json:"description,omitempty"`
}

// Unit is one memory unit of the field.
type Unit struct {
	ID         string     `json:"id"`
	Mode       Mode       `json:"mode"`
	Type       UnitType   `json:"type"`
	Content    string     `json:"content"`
	Intent     Intent     `json:"intent"`
	Confidence Confidence `json:"confidence"`
	Source     Source     `json:"source"`
	Relations  []Relation `json:"relations"`
	Status     UnitStatus `json:"status"`
	Epoch      int64      `json:"epoch"`
}
