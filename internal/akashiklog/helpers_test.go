package akashiklog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sdkEvent is one log line as the SDK writes it, built without this
// package's encoder so the tests pin the wire format independently.
type sdkEvent map[string]any

const testIntent = "note what the tests observed"

func ev(typ, eventID string, lamport int64, agent any) sdkEvent {
	return sdkEvent{
		"v": 1, "event_id": eventID, "type": typ, "lamport": lamport,
		"agent": agent, "wall_time": 1_700_000_000_000 + lamport,
	}
}

func (e sdkEvent) with(key string, value any) sdkEvent {
	e[key] = value
	return e
}

func (e sdkEvent) without(key string) sdkEvent {
	delete(e, key)
	return e
}

func register(eventID string, lamport int64, agentID, role string) sdkEvent {
	return ev("REGISTER", eventID, lamport, agentID).
		with("entry_id", agentID).with("role", role).with("capabilities", []string{"record"})
}

func deregister(eventID string, lamport int64, agentID string) sdkEvent {
	return ev("DEREGISTER", eventID, lamport, agentID).with("entry_id", agentID)
}

func record(eventID string, lamport int64, agent any, entryID, entry string) sdkEvent {
	return ev("RECORD", eventID, lamport, agent).
		with("entry_id", entryID).with("entry", json.RawMessage(entry)).with("intent", testIntent)
}

func statusChange(eventID string, lamport int64, agent any, entryID, status string) sdkEvent {
	return ev("STATUS_CHANGE", eventID, lamport, agent).
		with("entry_id", entryID).with("new_status", status).with("intent", testIntent)
}

// jsonl renders events one per line, numbering seq in file order unless an
// event sets its own.
func jsonl(t *testing.T, events ...sdkEvent) string {
	t.Helper()
	var b strings.Builder
	for i, e := range events {
		if _, ok := e["seq"]; !ok {
			e = e.with("seq", i+1)
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func writeLog(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustRead(t *testing.T, text string) *Log {
	t.Helper()
	log, err := Read(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return log
}

func replayText(t *testing.T, events ...sdkEvent) *State {
	t.Helper()
	return Replay(mustRead(t, jsonl(t, events...)).Events)
}

func eventIDs(events []Event) []string {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.EventID
	}
	return ids
}
