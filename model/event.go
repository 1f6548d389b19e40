package model

import (
	"encoding/json"
	"fmt"
	"time"
)

// The payloads of the events arbiter logs, one Go type each: review (and
// the generator and the import, which write fields in bulk) writes
// them through these types and every reader (the history, the screen, the
// decisions export) decodes them through the same types, with
// DecodePayload. Their JSON tags are the field format
// (docs/field-format.md, "events").
//
//	operation  payload
//	REGISTER   RegisterLog
//	RECORD     RecordRequest
//	DETECT     Conflict
//	MERGE      MergeLog
//	VOTE       VoteLog
//	REWORK     ReworkLog
//	REOPEN     ReopenLog
//	REMIND     RemindLog
//	POLICY     PolicyLog
//	FORK       ForkLog
//	JOIN       JoinLog
//	STATUS_CHANGE, and RECORD of an imported entry: ImportLog

// DecisionLog is the payload of a decision's event: the request R and
// what it did.
type DecisionLog[R any] struct {
	Request         R              `json:"request"`
	Status          ConflictStatus `json:"status"`
	SupersededUnits []string       `json:"superseded_units"`
	NewUnitID       *string        `json:"new_unit_id"`
	NotifiedAgents  []string       `json:"notified_agents"`
	// MessageID is the id of the decisions file's message the decision
	// was applied from; "" for a live decision.
	MessageID string `json:"message_id,omitempty"`
	// OverriddenBallots are the ballots of a vote a human operator closed
	// short of its quorum; nil when no vote was overridden.
	OverriddenBallots []Ballot `json:"overridden_ballots,omitzero"`
	// Route is where a routed conflict went, the policy's defaults
	// applied (not on a VOTE).
	Route *Route `json:"route,omitempty"`
	// Timeout is set on what a deadline executed; nil otherwise. Check it
	// before reading its fields.
	*Timeout
	// Revision is the unit whose RECORD settled a conflict sent back for
	// rework, and ContinuedBy the conflict that goes on when it still
	// contradicts the other unit.
	Revision    string `json:"revision,omitempty"`
	ContinuedBy string `json:"continued_by,omitempty"`
}

// MergeLog is the payload of a MERGE event.
type MergeLog = DecisionLog[MergeRequest]

// VoteLog is the payload of a VOTE event.
type VoteLog = DecisionLog[BallotLog]

// ReworkLog is the payload of a REWORK event: a conflict sent back to its
// authors, by a person or by a deadline.
type ReworkLog = DecisionLog[ReworkRequest]

// Timeout is what a decision executed by a deadline logs of the deadline.
type Timeout struct {
	Outcome  string     `json:"outcome"` // always TimeoutOutcome
	Fallback Fallback   `json:"fallback"`
	Deadline *time.Time `json:"deadline"`
	RoutedTo string     `json:"routed_to"`
	RoutedAt time.Time  `json:"routed_at"`
	// WinnerID is the unit a vote's majority picked at its deadline.
	WinnerID *string `json:"winner_id,omitempty"`
}

// TimeoutOutcome is Timeout.Outcome.
const TimeoutOutcome = "timeout"

// BallotLog is the request a VOTE event logs: the ballot and the tally
// after it.
type BallotLog struct {
	ConflictID string `json:"conflict_id"`
	Choice     string `json:"choice"`
	Rationale  string `json:"rationale"`
	Changed    bool   `json:"changed"`
	ForA       int    `json:"for_a"`
	ForB       int    `json:"for_b"`
}

// RemindLog is the payload of a REMIND event: a reminder (Kind
// SweepReminder) or an overdue notice (SweepOverdue).
type RemindLog struct {
	ConflictID     string     `json:"conflict_id"`
	Kind           string     `json:"kind"`
	Reminded       int        `json:"reminded"`
	Owner          string     `json:"owner"`
	Deadline       *time.Time `json:"deadline"`
	Fallback       Fallback   `json:"fallback"`
	Left           string     `json:"left"`
	NotifiedAgents []string   `json:"notified_agents"`
}

// ReopenLog is the payload of a REOPEN event: the decision taken back and
// what became of its units.
type ReopenLog struct {
	ConflictID string `json:"conflict_id"`
	Rationale  string `json:"rationale"`
	ReopenEffects
}

// RegisterLog is the payload of a REGISTER event.
type RegisterLog struct {
	Role      string    `json:"role"`
	Kind      AgentKind `json:"kind"`
	Authority int       `json:"authority"`
	DBRole    string    `json:"db_role,omitempty"`
}

// PolicyLog is the payload of a POLICY event.
type PolicyLog struct {
	Before         Policy   `json:"before"`
	After          Policy   `json:"after"`
	Changes        []string `json:"changes"`
	NotifiedAgents []string `json:"notified_agents"`
}

// ForkLog is the payload of a FORK event, logged in both fields: the
// field forked from, the fork, and the epoch they share.
type ForkLog struct {
	Field     string `json:"field"`
	FieldUID  string `json:"field_uid"`
	Fork      string `json:"fork"`
	ForkUID   string `json:"fork_uid"`
	BaseEpoch int64  `json:"base_epoch"`
}

// JoinLog is the payload of a JOIN event. The join's own event (no
// conflict) carries the report; an event on a conflict says what the
// join did to it (Kind) and, when the fork decided it, the fork's
// decision.
type JoinLog struct {
	Fork      string `json:"fork"`
	ForkUID   string `json:"fork_uid"`
	BaseEpoch int64  `json:"base_epoch"`
	// ForkEpoch is the fork's clock the join took everything up to.
	ForkEpoch int64       `json:"fork_epoch"`
	Report    *JoinReport `json:"report,omitempty"`
	// Kind is JoinRevision, JoinBrought, JoinDecided or JoinDiffered on
	// a conflict's event; ForkID its id in the fork.
	Kind   string `json:"kind,omitempty"`
	ForkID string `json:"fork_id,omitempty"`
	// Decision is the fork's decision of the conflict (JoinDecided,
	// JoinDiffered), its unit ids as they are in this field.
	Decision *Resolution `json:"decision,omitempty"`
}

// What a join did to a conflict (JoinLog.Kind).
const (
	// JoinRevision: both sides revised one unit from before the fork;
	// the join opened this conflict between the two revisions.
	JoinRevision = "revision"
	// JoinBrought: the conflict was opened in the fork and brought.
	JoinBrought = "brought"
	// JoinDecided: decided in the fork only; the fork's decision taken.
	JoinDecided = "decided"
	// JoinDiffered: decided differently on the two sides; put before a
	// person again.
	JoinDiffered = "differed"
)

// DecodePayload reads e's payload as a T, the type its operation logs
// (above). An event without a payload reads as T's zero value; one that
// does not decode is an error naming the event.
func DecodePayload[T any](e Event) (T, error) {
	var p T
	if len(e.Payload) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		return p, fmt.Errorf("the payload of event %d (%s by %s) does not read: %w", e.ID, e.Operation, e.AgentID, err)
	}
	return p, nil
}

// ImportLog is the payload of the RECORD and STATUS_CHANGE events an
// import from another program's event log writes: where the entry came
// from, and the status it carried (From: the unit's status before a
// STATUS_CHANGE).
type ImportLog struct {
	Source     string `json:"source"`
	EventID    string `json:"event_id"`
	Lamport    int64  `json:"lamport"`
	WallTime   int64  `json:"wall_time"`
	Supersedes string `json:"supersedes,omitempty"`
	From       string `json:"from,omitempty"`
	Status     string `json:"status"`
}
