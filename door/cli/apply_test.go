package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/model"
)

// A decisions file line with a key arbiter does not know — a misspelt
// expected_version in the payload, or a stray key beside it — is an
// error naming the line and the key, and nothing of the file is applied:
// not even the good decision before it.
func TestApplyRefusesAnUnknownKeyNamingItsLineAndAppliesNothing(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "register", "--id", "cat", "--role", "analyst")
	record(t, db, "cat", recordPayload("the cache holds 2 GB", 0.7, ""))
	record(t, db, "bob", recordPayload("the cache holds 4 GB", 0.6, "mem-003")) // conflict-002
	dir := t.TempDir()
	made := filepath.Join(dir, "made.jsonl")
	ok(t, "--db", db, "--as", "op", "--decisions-out", made, "merge", "conflict-001",
		"--strategy", "dismiss", "--rationale", "different hosts")
	ok(t, "--db", db, "--as", "op", "--decisions-out", made, "merge", "conflict-002",
		"--strategy", "dismiss", "--rationale", "different caches")
	msgs := decisionsFile(t, made)
	if len(msgs) != 2 {
		t.Fatalf("%d decisions made, want 2", len(msgs))
	}
	good, second := msgs[0], msgs[1]
	line := func(env model.Envelope, extra map[string]any, inPayload bool) string {
		var top, payload map[string]any
		b, _ := json.Marshal(env)
		json.Unmarshal(b, &top)
		json.Unmarshal(env.Payload, &payload)
		for k, v := range extra {
			if inPayload {
				payload[k] = v
			} else {
				top[k] = v
			}
		}
		top["payload"] = payload
		out, _ := json.Marshal(top)
		return string(out) + "\n"
	}
	before := sha(t, db)
	for name, c := range map[string]struct {
		extra     map[string]any
		inPayload bool
		key       string
	}{
		"a misspelt expected_version": {map[string]any{"expected_versoin": 2}, true, "expected_versoin"},
		"a stray key in the message":  {map[string]any{"epcoh": 3}, false, "epcoh"},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
			os.WriteFile(file, []byte(line(good, nil, true)+line(second, c.extra, c.inPayload)), 0o644)
			wantLine(t, "apply", arbiter(t, "--db", db, "apply", file), 1, []string{"line 2", `"` + c.key + `"`, "nothing was applied"})
			if sha(t, db) != before {
				t.Fatal("the field changed")
			}
		})
	}
}
