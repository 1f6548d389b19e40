package decisions_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"arbiter/internal/decisions"
	"arbiter/model"
)

// message is a decision by maya on a conflict of its own.
func message(t *testing.T, id string) model.Envelope { return messageOn(t, id, "conflict-"+id) }

func messageOn(t *testing.T, id, conflict string) model.Envelope {
	t.Helper()
	env, err := model.NewEnvelope(id, model.OpMerge, "maya", 0, model.MergeRequest{ConflictID: conflict,
		Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "not a conflict"}})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestAppendStampsTheNextEpochAndCutsATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	if e, err := decisions.Append(path, message(t, "m1"), 5); err != nil || e != 6 {
		t.Fatalf("first append: epoch %d, %v; want 6 (one past the field's 5)", e, err)
	}
	if e, err := decisions.Append(path, message(t, "m2"), 3); err != nil || e != 7 {
		t.Fatalf("second append: epoch %d, %v; want 7 (one past the file's 6)", e, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"protocol":"akashik","ver`) // a writer that died mid-line
	f.Close()
	if e, err := decisions.Append(path, message(t, "m3"), 0); err != nil || e != 8 {
		t.Fatalf("append after a torn line: epoch %d, %v; want 8", e, err)
	}
	file, err := decisions.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range file.Messages {
		ids = append(ids, m.Envelope.ID+"@"+itoa(m.Envelope.Epoch))
	}
	if got := strings.Join(ids, " "); got != "m1@6 m2@7 m3@8" || file.TornLine != 0 {
		t.Errorf("file holds %s (torn line %d), want m1@6 m2@7 m3@8 and no torn line", got, file.TornLine)
	}
}

func TestAppendEndsAWholeLastLineBeforeItsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	if _, err := decisions.Append(path, message(t, "m1"), 1); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.TrimSuffix(string(data), "\n")), 0o644) // an editor dropped the newline
	if _, err := decisions.Append(path, message(t, "m2"), 1); err != nil {
		t.Fatal(err)
	}
	file, err := decisions.ReadFile(path)
	if err != nil || len(file.Messages) != 2 {
		t.Fatalf("read %d messages, %v; want both", len(file.Messages), err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func ballot(t *testing.T, id, voter string) model.Envelope {
	t.Helper()
	env, err := model.NewEnvelope(id, model.OpMerge, voter, 0, model.VoteAsMerge(model.VoteRequest{
		ConflictID: "conflict-002", Choice: "mem-003", Rationale: "because"}))
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestAppendRefusesASecondDecisionOnOneConflict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	for _, env := range []model.Envelope{messageOn(t, "m1", "conflict-001"), ballot(t, "b1", "lead-1"), ballot(t, "b2", "lead-2")} {
		if _, err := decisions.Append(path, env, 1); err != nil {
			t.Fatalf("%s: %v", env.ID, err)
		}
	}
	for _, tc := range []struct {
		env  model.Envelope
		line int
	}{{messageOn(t, "m2", "conflict-001"), 1}, {ballot(t, "b3", "lead-1"), 2}} {
		_, err := decisions.Append(path, tc.env, 1)
		var taken *decisions.Taken
		if !errors.As(err, &taken) || taken.Line != tc.line {
			t.Errorf("%s: %v; want it refused for line %d", tc.env.ID, err, tc.line)
		}
	}
	decided, err := decisions.Decided(path)
	if err != nil || len(decided["conflict-001"]) != 1 || len(decided["conflict-002"]) != 2 {
		t.Errorf("Decided = %v, %v", decided, err)
	}
	if none, err := decisions.Decided(filepath.Join(t.TempDir(), "missing.jsonl")); err != nil || len(none) != 0 {
		t.Errorf("a missing file decides %v, %v", none, err)
	}
}
