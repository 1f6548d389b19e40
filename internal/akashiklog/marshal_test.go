package akashiklog

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMarshalWritesTheSDKFieldNames(t *testing.T) {
	ada := "ada"
	for _, tc := range []struct {
		name string
		e    Event
		want string
	}{
		{"register", Event{V: 1, EventID: "E1", Lamport: 1, Agent: &ada, WallTime: 10, Seq: 1,
			Type: TypeRegister, EntryID: "ada", Role: "researcher"},
			`{"v":1,"event_id":"E1","type":"REGISTER","lamport":1,"agent":"ada","wall_time":10,"seq":1,"entry_id":"ada","role":"researcher","capabilities":[]}`},
		{"deregister", Event{V: 1, EventID: "E2", Lamport: 2, Agent: &ada, WallTime: 11, Seq: 2,
			Type: TypeDeregister, EntryID: "ada"},
			`{"v":1,"event_id":"E2","type":"DEREGISTER","lamport":2,"agent":"ada","wall_time":11,"seq":2,"entry_id":"ada"}`},
		{"bare record", Event{V: 1, EventID: "E3", Lamport: 3, WallTime: 12, Seq: 3,
			Type: TypeRecord, EntryID: "R1", Entry: json.RawMessage(`{"topic": "db"}`), Intent: testIntent},
			`{"v":1,"event_id":"E3","type":"RECORD","lamport":3,"agent":null,"wall_time":12,"seq":3,"entry_id":"R1","entry":{"topic":"db"},"intent":"` + testIntent + `"}`},
		{"full record", Event{V: 1, EventID: "E4", Lamport: 4, WallTime: 13, Seq: 4,
			Type: TypeRecord, EntryID: "R2", Entry: json.RawMessage(`{}`), Intent: testIntent,
			Confidence: &Confidence{Score: 0.5}, Supersedes: "R1"},
			`{"v":1,"event_id":"E4","type":"RECORD","lamport":4,"agent":null,"wall_time":13,"seq":4,"entry_id":"R2","entry":{},"intent":"` + testIntent + `","confidence":{"score":0.5},"supersedes":"R1"}`},
		{"status change", Event{V: 1, EventID: "E5", Lamport: 5, WallTime: 14, Seq: 5,
			Type: TypeStatusChange, EntryID: "R2", NewStatus: StatusRetracted, Intent: testIntent},
			`{"v":1,"event_id":"E5","type":"STATUS_CHANGE","lamport":5,"agent":null,"wall_time":14,"seq":5,"entry_id":"R2","new_status":"retracted","intent":"` + testIntent + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, err := Marshal(tc.e)
			if err != nil {
				t.Fatal(err)
			}
			if string(line) != tc.want {
				t.Fatalf("got  %s\nwant %s", line, tc.want)
			}
			back := mustRead(t, string(line)+"\n").Events[0]
			if again, _ := Marshal(back); string(again) != tc.want {
				t.Fatalf("round trip changed the line: %s", again)
			}
		})
	}
}

func TestMarshalRefusesInvalidEvents(t *testing.T) {
	_, err := Marshal(Event{V: 1, EventID: "E1", Type: TypeRecord, EntryID: "R1", Entry: json.RawMessage(`{}`), Intent: "short"})
	if err == nil || !strings.Contains(err.Error(), "intent must be at least 10 characters") {
		t.Fatalf("err = %v", err)
	}
}
