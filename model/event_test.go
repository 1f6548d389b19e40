package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

var (
	at       = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	deadline = at.Add(10 * time.Hour)
)

// payloadCase is a payload, the JSON it was written as before the types,
// and how to decode it as its type.
type payloadCase struct {
	name   string
	value  any
	was    string
	decode func(Event) (any, error)
}

func kind[T any](name string, v T, was string) payloadCase {
	return payloadCase{name, v, was, func(e Event) (any, error) { return DecodePayload[T](e) }}
}

// payloadsOfEachKind are one filled value of each event payload type,
// with the JSON review wrote for it before the types existed (keys and
// values; JSON objects have no order).
func payloadsOfEachKind() []payloadCase {
	winner := "mem-002"
	route := &Route{Owner: "ops-maya", Since: at, Deadline: &deadline, Fallback: FallbackDismiss}
	return []payloadCase{
		kind("MERGE", MergeLog{Request: MergeRequest{ConflictID: "conflict-001", Strategy: HumanEscalation,
			Resolution: MergeResolution{Rationale: "ask"}}, Status: StatusEscalated, SupersededUnits: []string{},
			NotifiedAgents: []string{"a", "ops-maya"}, MessageID: "m-1", Route: route},
			`{"request":`+mustMarshal(MergeRequest{ConflictID: "conflict-001", Strategy: HumanEscalation,
				Resolution: MergeResolution{Rationale: "ask"}})+`,
			"status":"escalated","superseded_units":[],"new_unit_id":null,"notified_agents":["a","ops-maya"],"message_id":"m-1",
			"route":{"owner":"ops-maya","since":"2026-11-20T09:00:00Z","deadline":"2026-11-20T19:00:00Z","fallback":"dismiss"}}`),
		kind("MERGE by a deadline", MergeLog{Request: MergeRequest{ConflictID: "conflict-001", Strategy: Vote,
			Resolution: MergeResolution{Rationale: "the majority"}}, Status: StatusResolved, SupersededUnits: []string{"mem-001"},
			NotifiedAgents: []string{"a"}, OverriddenBallots: []Ballot{},
			Timeout: &Timeout{Outcome: TimeoutOutcome, Deadline: &deadline, RoutedAt: at, WinnerID: &winner}},
			`{"request":`+mustMarshal(MergeRequest{ConflictID: "conflict-001", Strategy: Vote,
				Resolution: MergeResolution{Rationale: "the majority"}})+`,
			"status":"resolved","superseded_units":["mem-001"],"new_unit_id":null,"notified_agents":["a"],"overridden_ballots":[],
			"outcome":"timeout","fallback":"","deadline":"2026-11-20T19:00:00Z","routed_to":"","routed_at":"2026-11-20T09:00:00Z",
			"winner_id":"mem-002"}`),
		kind("MERGE of a revision", MergeLog{Request: MergeRequest{ConflictID: "conflict-001", Strategy: Rework},
			Status: StatusResolved, SupersededUnits: []string{"mem-001"}, NewUnitID: &winner, NotifiedAgents: []string{},
			Revision: "mem-003", ContinuedBy: "conflict-002"},
			`{"request":`+mustMarshal(MergeRequest{ConflictID: "conflict-001", Strategy: Rework})+`,"status":"resolved",
			"superseded_units":["mem-001"],"new_unit_id":"mem-002","notified_agents":[],"revision":"mem-003","continued_by":"conflict-002"}`),
		kind("VOTE", VoteLog{Request: BallotLog{ConflictID: "conflict-001", Choice: "mem-002", Rationale: "B holds", Changed: true, ForA: 1, ForB: 2},
			Status: StatusPendingVote, SupersededUnits: []string{}, NotifiedAgents: []string{}},
			`{"request":{"conflict_id":"conflict-001","choice":"mem-002","rationale":"B holds","changed":true,"for_a":1,"for_b":2},
			"status":"pending_vote","superseded_units":[],"new_unit_id":null,"notified_agents":[]}`),
		kind("REWORK", ReworkLog{Request: ReworkRequest{ConflictID: "conflict-001", Rationale: "Recount it."}, Status: StatusResolving,
			SupersededUnits: []string{}, NotifiedAgents: []string{"a"}, Route: &Route{Since: at}},
			`{"request":{"conflict_id":"conflict-001","rationale":"Recount it."},"status":"resolving","superseded_units":[],
			"new_unit_id":null,"notified_agents":["a"],"route":{"since":"2026-11-20T09:00:00Z"}}`),
		kind("REMIND", RemindLog{ConflictID: "conflict-001", Kind: SweepReminder, Reminded: 1, Owner: "ops-maya", Deadline: &deadline,
			Fallback: FallbackRework, Left: "2h", NotifiedAgents: []string{"ops-maya"}},
			`{"conflict_id":"conflict-001","kind":"reminder","reminded":1,"owner":"ops-maya","deadline":"2026-11-20T19:00:00Z",
			"fallback":"rework","left":"2h","notified_agents":["ops-maya"]}`),
		kind("REOPEN", ReopenLog{ConflictID: "conflict-001", Rationale: "wrong", ReopenEffects: ReopenEffects{Undone: Resolution{Strategy: Dismiss,
			ResolvedBy: "lead", EpochResolved: 4, ResolvedAt: at}, Restored: []string{}, NotifiedAgents: []string{"lead"}}},
			`{"conflict_id":"conflict-001","rationale":"wrong","undone":`+mustMarshal(Resolution{Strategy: Dismiss, ResolvedBy: "lead",
				EpochResolved: 4, ResolvedAt: at})+`,"restored_units":[],"retracted_unit":null,"notified_agents":["lead"]}`),
		kind("REGISTER", RegisterLog{Role: "lead", Kind: KindHuman, Authority: 3},
			`{"role":"lead","kind":"human","authority":3}`),
		kind("REGISTER with a database role", RegisterLog{Role: "lead", Kind: KindHuman, Authority: 3, DBRole: "ana"},
			`{"role":"lead","kind":"human","authority":3,"db_role":"ana"}`),
		kind("POLICY", PolicyLog{Before: DefaultPolicy(), After: DefaultPolicy(), Changes: []string{"quorum 3 → 2"}},
			`{"before":`+mustMarshal(DefaultPolicy())+`,"after":`+mustMarshal(DefaultPolicy())+
				`,"changes":["quorum 3 → 2"],"notified_agents":null}`),
	}
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestEventPayloadsWriteTheKeysReviewAlwaysWrote(t *testing.T) {
	for _, tc := range payloadsOfEachKind() {
		var got, want any
		if err := json.Unmarshal([]byte(mustMarshal(tc.value)), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.was), &want); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s writes\n%s\nwant\n%s", tc.name, mustMarshal(got), mustMarshal(want))
		}
	}
}

func TestEventPayloadsRoundTrip(t *testing.T) {
	for _, tc := range payloadsOfEachKind() {
		e := Event{ID: 7, Operation: tc.name, Payload: json.RawMessage(mustMarshal(tc.value))}
		got, err := tc.decode(e)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.value) {
			t.Errorf("%s reads back as\n%+v\nwant\n%+v", tc.name, got, tc.value)
		}
	}
}

func TestAPayloadThatDoesNotDecodeIsAnErrorInTheHistory(t *testing.T) {
	c := Conflict{ID: "conflict-001", UnitA: "mem-001", UnitB: "mem-002"}
	for _, e := range []Event{
		{ID: 12, Operation: OpMerge, AgentID: "lead", Payload: json.RawMessage(`{"status": 5}`)},
		{ID: 12, Operation: OpVote, AgentID: "lead", Payload: json.RawMessage(`{"request": "B"}`)},
		{ID: 12, Operation: OpRemind, AgentID: "sweep", Payload: json.RawMessage(`{"notified_agents": "all"`)},
		{ID: 12, Operation: OpReopen, AgentID: "lead", Payload: json.RawMessage(`[]`)},
	} {
		s, err := EventSentence(c, e)
		if err == nil {
			t.Errorf("%s %s reads as %q without an error", e.Operation, e.Payload, s)
			continue
		}
		if !strings.Contains(err.Error(), "event 12 ("+e.Operation+" by "+e.AgentID+")") {
			t.Errorf("the error %q does not name the event", err)
		}
	}
	// A payload that reads gives no error.
	good := Event{ID: 13, Operation: OpVote, AgentID: "lead",
		Payload: json.RawMessage(mustMarshal(VoteLog{Request: BallotLog{Choice: "mem-002"}, Status: StatusResolved}))}
	if s, err := EventSentence(c, good); err != nil || s != "lead voted for B (mem-002), which closed the vote" {
		t.Errorf("a good ballot reads as %q, %v", s, err)
	}
}
