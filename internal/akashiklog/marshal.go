package akashiklog

import (
	"encoding/json"
	"fmt"
)

// Field layouts per type, in the SDK's names. Common fields come first.
type (
	wireHeader struct {
		V        int     `json:"v"`
		EventID  string  `json:"event_id"`
		Type     Type    `json:"type"`
		Lamport  int64   `json:"lamport"`
		Agent    *string `json:"agent"`
		WallTime int64   `json:"wall_time"`
		Seq      int64   `json:"seq"`
		EntryID  string  `json:"entry_id"`
	}
	wireRegister struct {
		wireHeader
		Role         string   `json:"role"`
		Capabilities []string `json:"capabilities"`
	}
	wireRecord struct {
		wireHeader
		Entry      json.RawMessage `json:"entry"`
		Intent     string          `json:"intent"`
		Confidence *Confidence     `json:"confidence,omitempty"`
		Supersedes string          `json:"supersedes,omitempty"`
	}
	wireStatusChange struct {
		wireHeader
		NewStatus Status `json:"new_status"`
		Intent    string `json:"intent"`
	}
)

// Marshal encodes e as one log line in the SDK's format, without the trailing
// newline. Optional fields (confidence, supersedes, confidence.reason) are
// omitted when unset; agent is written as null when nil. It fails when e
// does not pass Validate.
func Marshal(e Event) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("akashiklog: event %s: %w", e.EventID, err)
	}
	h := wireHeader{
		V: e.V, EventID: e.EventID, Type: e.Type, Lamport: e.Lamport,
		Agent: e.Agent, WallTime: e.WallTime, Seq: e.Seq, EntryID: e.EntryID,
	}
	var v any
	switch e.Type {
	case TypeRegister:
		caps := e.Capabilities
		if caps == nil {
			caps = []string{}
		}
		v = wireRegister{h, e.Role, caps}
	case TypeDeregister:
		v = h
	case TypeRecord:
		v = wireRecord{h, e.Entry, e.Intent, e.Confidence, e.Supersedes}
	case TypeStatusChange:
		v = wireStatusChange{h, e.NewStatus, e.Intent}
	}
	return json.Marshal(v)
}
