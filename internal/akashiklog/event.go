package akashiklog

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf16"

	"github.com/oklog/ulid/v2"
)

// Version is the only event format version this package reads and writes.
const Version = 1

// MinIntentLength is the SDK's minimum intent length, counted like a
// JavaScript string's length (UTF-16 code units).
const MinIntentLength = 10

// Type is an event's "type" field.
type Type string

// The four event types of the SDK's log.
const (
	TypeRegister     Type = "REGISTER"
	TypeDeregister   Type = "DEREGISTER"
	TypeRecord       Type = "RECORD"
	TypeStatusChange Type = "STATUS_CHANGE"
)

func (t Type) known() bool {
	switch t {
	case TypeRegister, TypeDeregister, TypeRecord, TypeStatusChange:
		return true
	}
	return false
}

// Status is an entry's status, as carried by STATUS_CHANGE's "new_status".
type Status string

// The statuses an entry can have.
const (
	StatusCommitted  Status = "committed"
	StatusDraft      Status = "draft"
	StatusRetracted  Status = "retracted"
	StatusSuperseded Status = "superseded"
)

// Live reports whether an entry with this status still takes part in
// conflicts: committed and draft entries do, retracted and superseded do not.
func (s Status) Live() bool { return s == StatusCommitted || s == StatusDraft }

func (s Status) known() bool { return s.Live() || s == StatusRetracted || s == StatusSuperseded }

// Confidence is a RECORD's optional "confidence" object.
type Confidence struct {
	Score  float64 `json:"score"`
	Reason string  `json:"reason,omitempty"`
}

// Event is one line of the log. Fields that a type does not use stay zero.
// Event has no JSON tags on purpose: use Marshal and Read, which speak the
// SDK's exact field names per type.
type Event struct {
	V        int     // "v", always Version
	EventID  string  // "event_id", a ULID
	Lamport  int64   // "lamport"
	Agent    *string // "agent", nil for null
	WallTime int64   // "wall_time", Unix milliseconds
	Seq      int64   // "seq", assigned by the writer: previous max + 1
	Type     Type    // "type"

	EntryID string // "entry_id": the agent id for REGISTER/DEREGISTER, else the entry id

	Role         string   // REGISTER "role"
	Capabilities []string // REGISTER "capabilities"

	Entry      json.RawMessage // RECORD "entry", a JSON object
	Intent     string          // RECORD and STATUS_CHANGE "intent"
	Confidence *Confidence     // RECORD "confidence", optional
	Supersedes string          // RECORD "supersedes", optional ("" when absent)

	NewStatus Status // STATUS_CHANGE "new_status"

	Line int // 1-based line the event was read from; 0 when not read from a file
}

// Validate checks the per-type rules every event in a log must satisfy.
// Read applies it to every line and Marshal to every event it writes.
func (e *Event) Validate() error {
	if e.V != Version {
		return fmt.Errorf("unsupported version %d (only v%d is known)", e.V, Version)
	}
	if e.EventID == "" {
		return missing("event_id")
	}
	if e.Type == "" {
		return missing("type")
	}
	if !e.Type.known() {
		return fmt.Errorf("unknown event type %q", e.Type)
	}
	if e.EntryID == "" {
		return missing("entry_id")
	}
	switch e.Type {
	case TypeRegister:
		if e.Role == "" {
			return missing("role")
		}
	case TypeRecord:
		if err := validateEntry(e.Entry); err != nil {
			return err
		}
		if err := validateIntent(e.Intent); err != nil {
			return err
		}
		if c := e.Confidence; c != nil && (c.Score < 0 || c.Score > 1) {
			return fmt.Errorf("confidence score %v is outside 0..1", c.Score)
		}
	case TypeStatusChange:
		if e.NewStatus == "" {
			return missing("new_status")
		}
		if !e.NewStatus.known() {
			return fmt.Errorf("unknown new_status %q (want committed, draft, retracted or superseded)", e.NewStatus)
		}
		if err := validateIntent(e.Intent); err != nil {
			return err
		}
	}
	return nil
}

func missing(field string) error { return fmt.Errorf("missing required field %q", field) }

func validateEntry(raw json.RawMessage) error {
	if len(raw) == 0 {
		return missing("entry")
	}
	if kindOf(raw) != kindObject || !json.Valid(raw) {
		return fmt.Errorf("field \"entry\" must be a JSON object")
	}
	return nil
}

func validateIntent(intent string) error {
	if intent == "" {
		return missing("intent")
	}
	if n := len(utf16.Encode([]rune(intent))); n < MinIntentLength {
		return fmt.Errorf("intent must be at least %d characters, got %d", MinIntentLength, n)
	}
	return nil
}

// NewEventID returns a new ULID for time t. IDs made for the same millisecond
// are strictly increasing within the process; it is safe for concurrent use.
func NewEventID(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()).String()
}
