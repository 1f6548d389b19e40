package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/model"
)

// sdkLog writes an Akashik SDK log (raw JSON lines, as the SDK writes
// them) of two registered agents whose entries on one topic conflict by
// the SDK's rule, in a file order that is not the replay order, plus
// extra lines as given.
func sdkLog(t *testing.T, extra ...string) string {
	t.Helper()
	lines := []string{
		`{"v":1,"event_id":"01J0EV00000000000000000003","type":"RECORD","lamport":5,"agent":"lab","wall_time":1772355600005,"seq":1,"entry_id":"01J0E2000000000000000000E2","entry":{"topic":"checkout-p99","p99_ms":40},"intent":"measure the checkout latency","confidence":{"score":0.8,"reason":"controlled run"}}`,
		`{"v":1,"event_id":"01J0EV00000000000000000001","type":"REGISTER","lamport":1,"agent":"probe","wall_time":1772355600001,"seq":2,"entry_id":"probe","role":"latency-probe","capabilities":[]}`,
		`{"v":1,"event_id":"01J0EV00000000000000000002","type":"REGISTER","lamport":2,"agent":"lab","wall_time":1772355600002,"seq":3,"entry_id":"lab","role":"lab-bench","capabilities":[]}`,
		`{"v":1,"event_id":"01J0EV00000000000000000004","type":"RECORD","lamport":4,"agent":"probe","wall_time":1772355600004,"seq":4,"entry_id":"01J0E1000000000000000000E1","entry":{"topic":"checkout-p99","p99_ms":90},"intent":"measure the checkout latency"}`,
	}
	path := filepath.Join(t.TempDir(), "field.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(append(lines, extra...), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportOfABadLogNamesTheLineAndImportsNothing(t *testing.T) {
	db := newField(t)
	for name, bad := range map[string]string{
		"unknown type":    `{"v":1,"event_id":"01J0EV00000000000000000009","type":"RENAME","lamport":9,"agent":"lab","wall_time":1,"seq":5,"entry_id":"x"}`,
		"unknown version": `{"v":2,"event_id":"01J0EV00000000000000000009","type":"RECORD","lamport":9,"agent":"lab","wall_time":1,"seq":5}`,
		"duplicate id":    `{"v":1,"event_id":"01J0EV00000000000000000001","type":"REGISTER","lamport":9,"agent":"x","wall_time":1,"seq":5,"entry_id":"x","role":"r"}`,
		"corrupt line":    `{"v":1,"event_id":`,
	} {
		t.Run(name, func(t *testing.T) {
			log := sdkLog(t, bad, `{"v":1,"event_id":"01J0EV0000000000000000000A","type":"DEREGISTER","lamport":10,"agent":"lab","wall_time":1,"seq":6,"entry_id":"lab"}`)
			before := sha(t, db)
			r := arbiter(t, "import", "--from", "akashik-jsonl", log, "--db", db)
			wantExit(t, r, 1)
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 ||
				!strings.Contains(r.stderr, "line 5") || !strings.Contains(r.stderr, "nothing was imported") {
				t.Fatalf("stderr %q: want one line naming line 5", r.stderr)
			}
			if sha(t, db) != before {
				t.Fatal("a refused import changed the field")
			}
		})
	}
}

func TestImportAndExportRoundTripThroughTheCommandLine(t *testing.T) {
	db := newField(t)
	log := sdkLog(t, `{"v":1,"event_id":"01J0EV0000000`) // a torn last line

	r := arbiter(t, "import", "--from", "akashik-jsonl", log, "--db", db)
	wantExit(t, r, 0)
	if !strings.Contains(r.stderr, "torn last line 5") {
		t.Errorf("stderr %q should mention the torn line", r.stderr)
	}
	for _, want := range []string{"agents     2 new", "units      2 new", "conflicts  1 new"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lacks %q", r.stdout, want)
		}
	}
	d := showJSON(t, db, "conflict-001")
	if d.Conflict.UnitA != "01J0E1000000000000000000E1" || d.Conflict.DetectedBy != model.DetectedLogical {
		t.Fatalf("conflict %+v: want the earlier entry as A, detected logically", d.Conflict)
	}
	ok(t, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "confidence_weighted", "--winner", "B",
		"--rationale", "the lab run controls for warm caches")

	out := ok(t, "export", "--to", "akashik-jsonl", log, "--db", db)
	if !strings.HasPrefix(out, "appended 1 event") {
		t.Errorf("export said %q", out)
	}
	if out := ok(t, "export", "--to", "akashik-jsonl", log, "--db", db); !strings.HasPrefix(out, "appended 0 events") {
		t.Errorf("second export said %q", out)
	}
	if out := ok(t, "import", "--from", "akashik-jsonl", log, "--db", db); !strings.Contains(out, "units      0 new, 2 already there") {
		t.Errorf("re-import said %q", out)
	}

	fresh := filepath.Join(t.TempDir(), "fresh.db")
	ok(t, "init", "--db", fresh)
	ok(t, "import", "--from", "akashik-jsonl", log, "--db", fresh)
	if out := ok(t, "--db", fresh, "list", "--status", "all"); !strings.Contains(out, "no conflicts") {
		t.Errorf("a field rebuilt from the exported log has conflicts:\n%s", out)
	}
}

// decisionsFile reads a decisions file's messages.
func decisionsFile(t *testing.T, path string) []model.Envelope {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []model.Envelope
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e model.Envelope
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// --decisions-out is obeyed on a field that could be written too: the
// decision goes to the file, and the field keeps every byte.
func TestDecisionsOutOnAWritableFieldWritesTheFileNotTheField(t *testing.T) {
	db := fieldWithConflict(t)
	decisions := filepath.Join(t.TempDir(), "decisions.jsonl")
	before := sha(t, db)
	r := arbiter(t, "--db", db, "--as", "op", "--decisions-out", decisions, "merge", "conflict-001",
		"--strategy", "dismiss", "--rationale", "not a conflict")
	wantExit(t, r, 0)
	if !strings.Contains(r.stdout, "recorded in "+decisions) || len(decisionsFile(t, decisions)) != 1 {
		t.Errorf("stdout %q; want the decision in the file", r.stdout)
	}
	r = call(t, nil, recordPayload("p99 is 60 ms", 0.5, ""), "--db", db, "--as", "ana", "--decisions-out", decisions, "record")
	wantExit(t, r, 3)
	if !strings.Contains(r.stderr, "READ_ONLY: the field is read-only (decisions go to "+decisions+" (--decisions-out))") ||
		!strings.Contains(r.stderr, "leave out --decisions-out") {
		t.Errorf("record with --decisions-out: stderr %q", r.stderr)
	}
	if sha(t, db) != before {
		t.Error("the field changed")
	}
	if d := showJSON(t, db, "conflict-001"); d.Conflict.Status != model.StatusDetected {
		t.Errorf("conflict-001 is %s in the field, want detected until applied", d.Conflict.Status)
	}
}

func TestOfflineTriageOnAReadOnlyCopyAppliesLaterOnTheLiveField(t *testing.T) {
	live := newField(t)
	record(t, live, "ana", recordPayload("p99 is 40 ms", 0.9, ""))
	record(t, live, "bob", recordPayload("p99 is 90 ms", 0.6, "mem-001")) // conflict-001
	record(t, live, "ana", recordPayload("errors are 0.1 %", 0.5, ""))
	record(t, live, "bob", recordPayload("errors are 2 %", 0.7, "mem-003")) // conflict-002
	record(t, live, "ana", recordPayload("retry 3 times", 0.5, ""))
	record(t, live, "bob", recordPayload("retry 5 times", 0.5, "mem-005")) // conflict-003
	ok(t, "--db", live, "--as", "ana", "merge", "conflict-003", "--strategy", "vote", "--rationale", "the leads know")

	// A copy on a laptop: not writable.
	dir := t.TempDir()
	cp, decisions := filepath.Join(dir, "copy.db"), filepath.Join(dir, "decisions.jsonl")
	copyFile(t, live, cp)
	if err := os.Chmod(cp, 0o444); err != nil {
		t.Fatal(err)
	}
	copySum := sha(t, cp)

	r := arbiter(t, "--db", cp, "--as", "op", "--decisions-out", decisions, "merge", "conflict-001",
		"--strategy", "confidence_weighted", "--winner", "A", "--rationale", "the lab run is controlled")
	wantExit(t, r, 0)
	if !strings.Contains(r.stdout, "recorded in "+decisions+" for later `arbiter apply`") {
		t.Fatalf("stdout %q", r.stdout)
	}
	ok(t, "--db", cp, "--read-only", "--as", "ana", "--decisions-out", decisions, "merge", "conflict-002",
		"--strategy", "last_write_wins", "--rationale", "the later measurement")
	r = call(t, []string{"ARBITER_DECISIONS_OUT=" + decisions}, "", "--db", cp, "--as", "lead", "vote", "conflict-003",
		"--for", "A", "--rationale", "three retries are enough")
	wantExit(t, r, 0)
	// A decision the live rules refuse is refused offline too, at once.
	r = arbiter(t, "--db", cp, "--as", "bob", "--decisions-out", decisions, "merge", "conflict-001",
		"--strategy", "confidence_weighted", "--winner", "A", "--rationale", "me too", "--json")
	wantExit(t, r, 3)
	if e := protocolError(t, r.stdout); e.Code != model.CodeNotPermitted {
		t.Fatalf("bob's decision: %+v, want NOT_PERMITTED", e)
	}
	// A second decision on a conflict the file already decides is refused.
	r = arbiter(t, "--db", cp, "--as", "op", "--decisions-out", decisions, "merge", "conflict-001",
		"--strategy", "dismiss", "--rationale", "on second thoughts")
	wantExit(t, r, 3)
	if !strings.Contains(r.stderr, "INVALID_TRANSITION: conflict-001 is already decided in "+decisions+" on line 1") {
		t.Errorf("a second decision: stderr %q", r.stderr)
	}
	msgs := decisionsFile(t, decisions)
	if len(msgs) != 3 {
		t.Fatalf("%d messages in the decisions file, want 3", len(msgs))
	}
	if sha(t, cp) != copySum {
		t.Fatal("the read-only copy changed")
	}

	// Meanwhile the live field moves on: conflict-002 is dismissed.
	ok(t, "--db", live, "--as", "op", "merge", "conflict-002", "--strategy", "dismiss", "--rationale", "different metrics")

	r = arbiter(t, "--db", live, "apply", decisions)
	wantExit(t, r, 3)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("apply printed %d lines, want 3 and a summary:\n%s", len(lines), r.stdout)
	}
	for i, want := range []string{"conflict-001 by op: applied: resolved", "conflict-002 by ana: refused: INVALID_TRANSITION",
		"conflict-003 by lead: applied: pending_vote", "applied 2, already applied 0, refused 1"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q lacks %q", i+1, lines[i], want)
		}
	}
	if d := showJSON(t, live, "conflict-001"); d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution.ResolvedBy != "op" {
		t.Errorf("conflict-001 %+v", d.Conflict)
	}
	if d := showJSON(t, live, "conflict-003"); len(d.Ballots) != 1 || d.Ballots[0].VoterID != "lead" || d.Ballots[0].Choice != "mem-005" {
		t.Errorf("ballots of conflict-003: %+v", d.Ballots)
	}

	// Applying again changes nothing.
	sum := sha(t, live)
	r = arbiter(t, "--db", live, "apply", decisions, "--json")
	wantExit(t, r, 3)
	var res struct {
		Decisions []struct {
			Status string       `json:"status"`
			Error  *model.Error `json:"error"`
		} `json:"decisions"`
		Summary struct {
			Applied        int `json:"applied"`
			AlreadyApplied int `json:"already_applied"`
			Refused        int `json:"refused"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("apply --json: %v\n%s", err, r.stdout)
	}
	if res.Summary.AlreadyApplied != 2 || res.Summary.Refused != 1 || res.Summary.Applied != 0 ||
		res.Decisions[1].Error == nil || res.Decisions[1].Error.Code != model.CodeInvalidTransition {
		t.Errorf("second apply %+v", res)
	}
	if sha(t, live) != sum {
		t.Error("the second apply changed the field")
	}

	// The history lists the applied messages under their own ids.
	history := ok(t, "export", "--decisions", "--db", live)
	for _, m := range []model.Envelope{msgs[0], msgs[2]} {
		if !strings.Contains(history, `"id":"`+m.ID+`"`) {
			t.Errorf("the decision history lacks message %s:\n%s", m.ID, history)
		}
	}
}

func TestApplyOfAMalformedDecisionsFileAppliesNothing(t *testing.T) {
	db := fieldWithConflict(t)
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	os.WriteFile(path, []byte("{\"protocol\":\"akashik\"}\n{}\n"), 0o644)
	before := sha(t, db)
	r := arbiter(t, "--db", db, "apply", path)
	wantExit(t, r, 1)
	if !strings.Contains(r.stderr, "line 1") || !strings.Contains(r.stderr, "nothing was applied") {
		t.Errorf("stderr %q", r.stderr)
	}
	if sha(t, db) != before {
		t.Error("the field changed")
	}
}
