package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"arbiter/model"
)

func TestAnEventWhosePayloadDoesNotDecodeSaysSoInTheHistory(t *testing.T) {
	st := NewStyles(Theme{NoColor: true})
	d := model.ConflictDetail{Conflict: model.Conflict{ID: "conflict-001", UnitA: "mem-001", UnitB: "mem-002"}}
	d.Events = []model.Event{
		{ID: 4, Operation: model.OpVote, AgentID: "lead", Payload: json.RawMessage(`{"request": {"choice": "mem-002", "changed": true}, "status": "pending_vote"}`)},
		{ID: 5, Operation: model.OpMerge, AgentID: "lead", Payload: json.RawMessage(`{"request": "keep A", "status": "resolved"}`)},
	}
	h := historyText(st, d, false)
	if !strings.Contains(h, "changed their vote to B (mem-002)") {
		t.Errorf("the ballot should read from its request:\n%s", h)
	}
	if !strings.Contains(h, "the payload of event 5 (MERGE by lead) does not read") {
		t.Errorf("the unreadable MERGE should say so:\n%s", h)
	}
}
