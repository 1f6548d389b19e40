package model

import (
	"encoding/json"
	"testing"
)

func TestJoinOfReadsTheLatestJoinOfAConflict(t *testing.T) {
	c := "conflict-9"
	ev := func(op string, p any) Event {
		b, _ := json.Marshal(p)
		return Event{Operation: op, AgentID: "maya", ConflictID: &c, Payload: b}
	}
	events := []Event{
		ev(OpDetect, Conflict{}),
		ev(OpJoin, JoinLog{Fork: "site-b.db", Kind: JoinBrought, ForkID: "conflict-4"}),
		ev(OpJoin, JoinLog{Fork: "site-b.db", Kind: JoinDecided, Decision: &Resolution{Strategy: Authority, ResolvedBy: "lead-1", Rationale: "the lab\nholds"}}),
	}
	got, ok := JoinOf(events)
	if !ok || got.Kind != JoinDecided {
		t.Fatalf("JoinOf = %+v, %v; want the decided one", got, ok)
	}
	if line := JoinLine(got); line != "came from joining site-b.db: decided in the fork only, by lead-1 (authority)" {
		t.Fatalf("JoinLine = %q", line)
	}
	s, err := EventSentence(Conflict{ID: c}, events[2])
	if err != nil || s != "maya joined site-b.db: decided in the fork only, by lead-1 (authority): the lab holds" {
		t.Fatalf("EventSentence = %q (%v)", s, err)
	}
	if _, ok := JoinOf(events[:1]); ok {
		t.Fatal("JoinOf found a join in a history without one")
	}
	fork, _ := json.Marshal(ForkLog{Fork: "site-b.db", BaseEpoch: 41})
	if s, _ := EventSentence(Conflict{}, Event{Operation: OpFork, AgentID: "maya", Payload: fork}); s != "maya forked site-b.db at epoch 41" {
		t.Fatalf("a FORK event reads %q", s)
	}
}
