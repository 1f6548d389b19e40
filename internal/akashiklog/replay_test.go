package akashiklog

import (
	"slices"
	"testing"
)

func TestReplayFollowsLamportNotFileOrder(t *testing.T) {
	// The retraction was written to the file first but happened after.
	s := replayText(t,
		statusChange("E2", 9, "ada", "R1", "retracted"),
		record("E1", 3, "ada", "R1", `{"topic":"db"}`),
	)
	if r := s.Entry("R1"); r == nil || r.Status != StatusRetracted {
		t.Fatalf("R1 = %+v", r)
	}
	if len(s.Anomalies) != 0 {
		t.Fatalf("anomalies = %+v", s.Anomalies)
	}
}

func TestReplaySupersedeChainLeavesOnlyTheLastLive(t *testing.T) {
	s := replayText(t,
		record("E3", 3, "ada", "R3", `{"topic":"db","engine":"duckdb"}`).with("supersedes", "R2"),
		record("E1", 1, "ada", "R1", `{"topic":"db","engine":"sqlite"}`),
		record("E2", 2, "bob", "R2", `{"topic":"db","engine":"postgres"}`).with("supersedes", "R1"),
	)
	var ids []string
	for _, e := range s.Entries {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"R1", "R2", "R3"}) {
		t.Fatalf("entries = %v", ids)
	}
	for _, tc := range []struct {
		id, by string
		status Status
	}{
		{"R1", "R2", StatusSuperseded},
		{"R2", "R3", StatusSuperseded},
		{"R3", "", StatusCommitted},
	} {
		e := s.Entry(tc.id)
		if e.Status != tc.status || e.SupersededBy != tc.by {
			t.Errorf("%s: status %s by %q, want %s by %q", tc.id, e.Status, e.SupersededBy, tc.status, tc.by)
		}
	}
	if r3 := s.Entry("R3"); r3.Supersedes != "R2" || r3.Topic != "db" || !r3.Live() {
		t.Fatalf("R3 = %+v", r3)
	}
}

func TestReplayStatusChangeRetractsAndRestores(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{"topic":"db"}`),
		statusChange("E2", 2, "ada", "R1", "retracted"),
		record("E3", 3, "ada", "R2", `{"topic":"db"}`),
		statusChange("E4", 4, "ada", "R2", "draft"),
	)
	if s.Entry("R1").Status != StatusRetracted || s.Entry("R1").Live() {
		t.Fatalf("R1 = %s", s.Entry("R1").Status)
	}
	if s.Entry("R2").Status != StatusDraft || !s.Entry("R2").Live() {
		t.Fatalf("R2 = %s", s.Entry("R2").Status)
	}
}

func TestReplayKeepsEntryDetails(t *testing.T) {
	s := replayText(t, record("E1", 4, nil, "R1", `{"topic":7,"x":1}`).
		with("confidence", map[string]any{"score": 0.8, "reason": "two sources"}))
	r := s.Entry("R1")
	if r.Agent != nil || r.Lamport != 4 || r.WallTime != 1_700_000_000_004 || r.EventID != "E1" {
		t.Fatalf("R1 = %+v", r)
	}
	if r.HasTopic || r.Topic != "" {
		t.Fatalf("a non-string topic was taken: %q", r.Topic)
	}
	if r.Confidence == nil || r.Confidence.Score != 0.8 || r.Confidence.Reason != "two sources" {
		t.Fatalf("confidence = %+v", r.Confidence)
	}
}

func TestReplayTracksAgents(t *testing.T) {
	s := replayText(t,
		register("E1", 1, "ada", "researcher"),
		register("E2", 2, "bob", "critic"),
		deregister("E3", 3, "bob"),
	)
	if len(s.Agents) != 2 {
		t.Fatalf("agents = %d", len(s.Agents))
	}
	ada, bob := s.Agent("ada"), s.Agent("bob")
	if ada.Role != "researcher" || !slices.Equal(ada.Capabilities, []string{"record"}) || ada.Deregistered {
		t.Fatalf("ada = %+v", ada)
	}
	if !bob.Registered || !bob.Deregistered {
		t.Fatalf("bob = %+v", bob)
	}
}

func TestReplayReportsEventsItCannotApply(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{}`),
		record("E2", 2, "ada", "R1", `{}`),
		statusChange("E3", 3, "ada", "NOPE", "retracted"),
		record("E4", 4, "ada", "R2", `{}`).with("supersedes", "GONE"),
	)
	var reasons []string
	for _, a := range s.Anomalies {
		reasons = append(reasons, a.EventID+": "+a.Reason)
	}
	want := []string{
		`E2: records entry "R1" again; the first record is kept`,
		`E3: changes the status of unknown entry "NOPE"`,
		`E4: supersedes unknown entry "GONE"`,
	}
	if !slices.Equal(reasons, want) {
		t.Fatalf("anomalies = %q", reasons)
	}
	if s.Anomalies[0].Line != 2 {
		t.Fatalf("anomaly line = %d", s.Anomalies[0].Line)
	}
}
