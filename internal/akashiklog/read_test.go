package akashiklog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestReadKeepsFileOrderAndLineNumbers(t *testing.T) {
	text := jsonl(t,
		register("E1", 1, "ada", "researcher"),
		record("E2", 2, "ada", "R1", `{"topic":"db","engine":"sqlite"}`),
	)
	log := mustRead(t, "\n"+text) // a leading blank line still counts
	if got := eventIDs(log.Events); !slices.Equal(got, []string{"E1", "E2"}) {
		t.Fatalf("events = %v", got)
	}
	if log.Events[1].Line != 3 || log.TornTail {
		t.Fatalf("line = %d, torn = %v", log.Events[1].Line, log.TornTail)
	}
	r := log.Events[1]
	if r.Type != TypeRecord || *r.Agent != "ada" || r.EntryID != "R1" || r.Intent != testIntent || r.Seq != 2 {
		t.Fatalf("record = %+v", r)
	}
}

func TestReadSkipsTornLastLineWithoutNewline(t *testing.T) {
	text := jsonl(t, register("E1", 1, "ada", "researcher")) + `{"v":1,"event_id":"E2","ty`
	log := mustRead(t, text)
	if !log.TornTail || log.TornLine != 2 || len(log.Events) != 1 {
		t.Fatalf("torn = %v line %d, events = %d", log.TornTail, log.TornLine, len(log.Events))
	}
}

func TestReadSkipsInvalidFinalLineFollowedByBlankLines(t *testing.T) {
	text := jsonl(t, register("E1", 1, "ada", "researcher")) + "{\"v\":1,\n\n\n"
	log := mustRead(t, text)
	if !log.TornTail || log.TornLine != 2 || len(log.Events) != 1 {
		t.Fatalf("torn = %v line %d, events = %d", log.TornTail, log.TornLine, len(log.Events))
	}
}

func TestReadRejectsCorruptMiddleLine(t *testing.T) {
	lines := strings.SplitAfter(jsonl(t,
		register("E1", 1, "ada", "researcher"),
		record("E2", 2, "ada", "R1", `{"topic":"db"}`),
		record("E3", 3, "ada", "R2", `{"topic":"db"}`),
	), "\n")
	text := lines[0] + lines[1][:20] + "\n" + lines[2]
	assertLineError(t, text, 2, "invalid JSON")
}

func TestReadRejectsBadLines(t *testing.T) {
	ok := register("E0", 1, "ada", "researcher")
	for _, tc := range []struct {
		name, reason string
		bad          sdkEvent
	}{
		{"unknown version", "unsupported version 2 (only v1 is known)",
			record("E1", 2, "ada", "R1", `{}`).with("v", 2)},
		{"no version", `missing required field "v"`,
			record("E1", 2, "ada", "R1", `{}`).without("v")},
		{"unknown type", `unknown event type "FOO"`,
			ev("FOO", "E1", 2, "ada").with("entry_id", "x")},
		{"no lamport", `missing required field "lamport"`,
			record("E1", 2, "ada", "R1", `{}`).without("lamport")},
		{"no intent", `missing required field "intent"`,
			record("E1", 2, "ada", "R1", `{}`).without("intent")},
		{"short intent", "intent must be at least 10 characters, got 5",
			record("E1", 2, "ada", "R1", `{}`).with("intent", "short")},
		{"entry not an object", `field "entry" must be a JSON object`,
			record("E1", 2, "ada", "R1", `["a"]`)},
		{"no role", `missing required field "role"`,
			register("E1", 2, "bob", "x").without("role")},
		{"bad status", `unknown new_status "gone" (want committed, draft, retracted or superseded)`,
			statusChange("E1", 2, "ada", "R1", "gone")},
		{"string lamport", `field "lamport" has the wrong type: got string, want int64`,
			record("E1", 2, "ada", "R1", `{}`).with("lamport", "2")},
		{"score out of range", "confidence score 1.5 is outside 0..1",
			record("E1", 2, "ada", "R1", `{}`).with("confidence", map[string]any{"score": 1.5})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The bad line is not last, so it cannot pass for a torn tail.
			text := jsonl(t, ok, tc.bad, record("E9", 9, "ada", "R9", `{}`))
			assertLineError(t, text, 2, tc.reason)
		})
	}
}

func TestReadRejectsDuplicateEventID(t *testing.T) {
	text := jsonl(t,
		register("E1", 1, "ada", "researcher"),
		record("E2", 2, "ada", "R1", `{}`),
		record("E2", 3, "ada", "R2", `{}`),
	)
	assertLineError(t, text, 3, `duplicate event_id "E2" (first on line 2)`)
}

func TestReadIgnoresUnknownFieldsAndNullOptionals(t *testing.T) {
	text := jsonl(t, record("E1", 1, nil, "R1", `{"topic":"db"}`).
		with("future_field", map[string]any{"x": 1}).
		with("confidence", nil).with("supersedes", nil))
	e := mustRead(t, text).Events[0]
	if e.Agent != nil || e.Confidence != nil || e.Supersedes != "" {
		t.Fatalf("event = %+v", e)
	}
}

func TestReadHandlesLinesLongerThanScannerLimit(t *testing.T) {
	big := strings.Repeat("x", 256*1024)
	text := jsonl(t, record("E1", 1, "ada", "R1", `{"topic":"db","blob":"`+big+`"}`))
	if e := mustRead(t, text).Events[0]; len(e.Entry) < len(big) {
		t.Fatalf("entry truncated to %d bytes", len(e.Entry))
	}
}

func TestReadFileNamesThePath(t *testing.T) {
	path := writeLog(t, "{\n"+jsonl(t, register("E1", 1, "ada", "researcher")))
	_, err := ReadFile(path)
	var le *LineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), path+": line 1: invalid JSON") {
		t.Fatalf("err = %v", err)
	}
}

func assertLineError(t *testing.T, text string, line int, reason string) {
	t.Helper()
	log, err := Read(strings.NewReader(text))
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *LineError", err)
	}
	if log != nil {
		t.Fatalf("a partial log was returned with the error")
	}
	if le.Line != line || le.Reason != reason {
		t.Fatalf("got line %d %q, want line %d %q", le.Line, le.Reason, line, reason)
	}
	if want := fmt.Sprintf("line %d: %s", line, reason); err.Error() != want {
		t.Fatalf("message = %q, want %q", err.Error(), want)
	}
}
