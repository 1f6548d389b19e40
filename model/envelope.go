package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The protocol an Envelope speaks.
const (
	ProtocolName    = "akashik"
	ProtocolVersion = "0.1.0"
)

// Envelope is an Akashik message (spec §5.1): who sends which operation at
// which epoch, and its payload.
type Envelope struct {
	Protocol  string          `json:"protocol"`
	Version   string          `json:"version"`
	ID        string          `json:"id"`
	Operation string          `json:"operation"`
	AgentID   string          `json:"agent_id"`
	SessionID *string         `json:"session_id"`
	Epoch     int64           `json:"epoch"`
	Payload   json.RawMessage `json:"payload"`
}

// NewEnvelope wraps payload in an envelope of the protocol's version.
func NewEnvelope(id, operation, agentID string, epoch int64, payload any) (Envelope, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, err
	}
	return Envelope{Protocol: ProtocolName, Version: ProtocolVersion, ID: id, Operation: operation,
		AgentID: agentID, Epoch: epoch, Payload: raw}, nil
}

// Check reports what makes e unusable as a message of this protocol
// version, or nil.
func (e Envelope) Check() error {
	switch {
	case e.Protocol != ProtocolName:
		return fmt.Errorf("protocol %q is not %q", e.Protocol, ProtocolName)
	case e.Version != ProtocolVersion:
		return fmt.Errorf("protocol version %q is not %s", e.Version, ProtocolVersion)
	case strings.TrimSpace(e.ID) == "":
		return fmt.Errorf("the message has no id")
	case e.Operation == "":
		return fmt.Errorf("the message has no operation")
	case strings.TrimSpace(e.AgentID) == "":
		return fmt.Errorf("the message has no agent_id")
	case e.Epoch < 0:
		return fmt.Errorf("epoch %d is negative", e.Epoch)
	case len(e.Payload) == 0 || string(e.Payload) == "null":
		return fmt.Errorf("the message has no payload")
	}
	return nil
}

// OfflineRecord says that a decision was not written to the field (it is
// open read-only) but appended, as an Akashik MERGE message, to a
// decisions file for `arbiter apply` to replay later.
type OfflineRecord struct {
	File      string `json:"file"`
	MessageID string `json:"message_id"`
	Epoch     int64  `json:"epoch"`
}

// VoteAsMerge is a ballot as a decisions file carries it: a MERGE with
// strategy vote whose resolution.winner_id is the unit voted for. A MERGE
// with strategy vote and no winner opens a vote instead.
func VoteAsMerge(v VoteRequest) MergeRequest {
	choice := v.Choice
	return MergeRequest{ConflictID: v.ConflictID, Strategy: Vote, ExpectedVersion: v.ExpectedVersion,
		Resolution: MergeResolution{WinnerID: &choice, Rationale: v.Rationale}}
}

// Ballot returns the vote a MERGE message carries, when it is a ballot
// (strategy vote with a winner_id) rather than a MERGE proper.
func (r MergeRequest) Ballot() (VoteRequest, bool) {
	if r.Strategy != Vote || r.Resolution.WinnerID == nil || *r.Resolution.WinnerID == "" {
		return VoteRequest{}, false
	}
	return VoteRequest{ConflictID: r.ConflictID, Choice: *r.Resolution.WinnerID,
		Rationale: r.Resolution.Rationale, ExpectedVersion: r.ExpectedVersion}, true
}

// DecisionRecord is the payload of a MERGE message in arbiter's exported
// decision history: the request as it was made, and what it did.
type DecisionRecord struct {
	MergeRequest
	Result *DecisionResult `json:"result,omitempty"`
}

// DecisionResult is what a recorded decision did to the field.
type DecisionResult struct {
	Status          ConflictStatus `json:"status"`
	SupersededUnits []string       `json:"superseded_units"`
	NewUnitID       *string        `json:"new_unit_id"`
	// EventID is the field's event log entry the decision was read from.
	EventID int64 `json:"event_id"`
}

// ApplyResult is what became of one decision from a decisions file that
// the field accepted: applied now, or found applied before.
type ApplyResult struct {
	MessageID      string         `json:"message_id"`
	ConflictID     string         `json:"conflict_id"`
	AgentID        string         `json:"agent_id"`
	AlreadyApplied bool           `json:"already_applied"`
	Merge          *MergeResponse `json:"merge,omitempty"`
	Vote           *VoteResponse  `json:"vote,omitempty"`
}
