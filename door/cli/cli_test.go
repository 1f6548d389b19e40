package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/deliver/delivertest"
)

// bin is the arbiter binary built once for all tests; home is the HOME
// (and XDG directories) every run gets, so no user config leaks in.
var bin, home string

func TestMain(m *testing.M) {
	delivertest.Main() // this binary, started as a webhook receiver by delivertest.Start
	if addr := os.Getenv(receiverEnv); addr != "" {
		os.Exit(runReceiver(addr)) // this binary, started as a webhook receiver (deliver_test.go)
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "arbiter-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, home = filepath.Join(dir, "arbiter"), filepath.Join(dir, "home")
	build := exec.Command("go", "build", "-o", bin, "arbiter")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building arbiter:", err)
		return 1
	}
	return m.Run()
}

type result struct {
	code           int
	stdout, stderr string
}

// call runs the binary with args, extra environment variables and stdin.
func call(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running arbiter %v: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

func cleanEnv() []string {
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "TZ=UTC"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "ARBITER_") && !strings.HasPrefix(name, "XDG_") && name != "HOME" && name != "TZ" {
			env = append(env, kv)
		}
	}
	return env
}

// arbiter runs the binary with args.
func arbiter(t *testing.T, args ...string) result {
	t.Helper()
	return call(t, nil, "", args...)
}

// ok runs the binary and fails the test unless it succeeds.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := arbiter(t, args...)
	if r.code != 0 {
		t.Fatalf("arbiter %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func wantExit(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
}

// recordPayload is a RECORD payload by the conventions of these tests.
func recordPayload(content string, score float64, contradicts string) string {
	p := map[string]any{
		"mode": "committed", "type": "finding", "content": content,
		"intent":     map[string]any{"purpose": "measure the checkout latency"},
		"confidence": map[string]any{"score": score, "reasoning": "measured", "evidence": []string{}, "assumptions": []string{}},
		"relations":  []any{},
	}
	if contradicts != "" {
		p["relations"] = []any{map[string]any{"type": "contradicts", "target_id": contradicts,
			"description": "the two measurements disagree"}}
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// newField creates an empty field with a quorum of 2, without recusal
// (ana decides and votes on her own units), and registers: ana (analyst,
// 6), bob (analyst, 4), lead (lead, 6) and op (a human operator, 10).
func newField(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "field.db")
	ok(t, "init", "--db", db, "--quorum", "2", "--recusal=false")
	ok(t, "--db", db, "register", "--id", "ana", "--role", "analyst", "--authority", "6")
	ok(t, "--db", db, "register", "--id", "bob", "--role", "analyst")
	ok(t, "--db", db, "register", "--id", "lead", "--role", "lead", "--authority", "6")
	ok(t, "--db", db, "register", "--id", "op", "--role", "operator", "--kind", "human", "--authority", "10")
	return db
}

// fieldWithConflict is newField plus mem-001 by ana (confidence 0.9) and
// mem-002 by bob (0.6) contradicting it: conflict-001.
func fieldWithConflict(t *testing.T) string {
	t.Helper()
	db := newField(t)
	record(t, db, "ana", recordPayload("p99 is 40 ms", 0.9, ""))
	record(t, db, "bob", recordPayload("p99 is 90 ms", 0.6, "mem-001"))
	return db
}

func record(t *testing.T, db, as, payload string) string {
	t.Helper()
	r := call(t, nil, payload, "--db", db, "--as", as, "record")
	wantExit(t, r, 0)
	return r.stdout
}

func showJSON(t *testing.T, db, id string) model.ConflictDetail {
	t.Helper()
	var d model.ConflictDetail
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "show", id, "--json")), &d); err != nil {
		t.Fatalf("show --json: %v", err)
	}
	return d
}

func protocolError(t *testing.T, stdout string) model.Error {
	t.Helper()
	var e model.Error
	if err := json.Unmarshal([]byte(stdout), &e); err != nil {
		t.Fatalf("stdout is not an error object: %v\n%s", err, stdout)
	}
	return e
}

func sha(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestInitCreatesFieldAndRefusesExistingOne(t *testing.T) {
	db := filepath.Join(t.TempDir(), "field.db")
	out := ok(t, "init", "--db", db, "--level", "2", "--tie", "stay", "--authority", "factual=lead")
	for _, want := range []string{"created " + db, "level 2", "tie stay", "recusal", "factual=lead", "0 agents"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	other := filepath.Join(t.TempDir(), "other.db")
	if out := ok(t, "init", "--db", other, "--recusal=false", "--operator-override"); strings.Contains(out, "recusal") ||
		!strings.Contains(out, "operator override") {
		t.Errorf("init --recusal=false --operator-override:\n%s", out)
	}
	before := sha(t, db)
	r := arbiter(t, "init", "--db", db)
	wantExit(t, r, 1)
	if !strings.Contains(r.stderr, "already exists") {
		t.Errorf("stderr = %q, want a refusal to overwrite", r.stderr)
	}
	if sha(t, db) != before {
		t.Error("a refused init changed the existing field")
	}
}

func TestInitDemoFillsAReviewQueue(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	var rows []model.ConflictSummary
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "list", "--json")), &rows); err != nil {
		t.Fatalf("list --json: %v", err)
	}
	escalated := 0
	for _, r := range rows {
		if r.Status == model.StatusEscalated {
			escalated++
		}
		if r.Status != model.StatusEscalated && r.Status != model.StatusPendingVote {
			t.Errorf("list by default shows %s in status %s", r.ID, r.Status)
		}
	}
	if escalated < 5 {
		t.Fatalf("%d escalated conflicts in the demo, want at least 5", escalated)
	}
}

func TestDemoCreatesItsFieldOnceInTheDataDirectory(t *testing.T) {
	data := t.TempDir()
	env := []string{"XDG_DATA_HOME=" + data}
	first := call(t, env, "", "demo")
	wantExit(t, first, 0)
	db := filepath.Join(data, "arbiter", "demo.db")
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("demo field not created: %v", err)
	}
	if !strings.Contains(first.stdout, "created "+db) || !strings.Contains(first.stdout, "escalated") {
		t.Errorf("first demo run output:\n%s", first.stdout)
	}
	second := call(t, env, "", "demo")
	wantExit(t, second, 0)
	if strings.Contains(second.stdout, "created") {
		t.Errorf("second demo run created the field again:\n%s", second.stdout)
	}
}

func TestRecordWithContradictsOpensConflict(t *testing.T) {
	db := newField(t)
	out := record(t, db, "ana", recordPayload("p99 is 40 ms", 0.9, ""))
	if !strings.Contains(out, "recorded mem-001") {
		t.Errorf("record output = %q", out)
	}
	out = record(t, db, "bob", recordPayload("p99 is 90 ms", 0.6, "mem-001"))
	for _, want := range []string{"recorded mem-002", "opened conflict-001", "mem-001 vs mem-002"} {
		if !strings.Contains(out, want) {
			t.Errorf("record output lacks %q:\n%s", want, out)
		}
	}
	r := call(t, nil, recordPayload("p99 is 70 ms", 0.5, "mem-001"), "--db", db, "--as", "ana", "record", "-", "--json")
	wantExit(t, r, 0)
	var res model.RecordResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("record --json: %v", err)
	}
	if res.UnitID != "mem-003" || len(res.Conflicts) != 1 || res.Conflicts[0].ID != "conflict-002" {
		t.Errorf("record --json = %+v", res)
	}
}

func TestRecordRefusesUnknownFields(t *testing.T) {
	db := newField(t)
	payload := `{"type": "finding", "content": "x", "intent": {"purpose": "p"}, "colour": "red"}`
	r := call(t, nil, payload, "--db", db, "--as", "ana", "record")
	wantExit(t, r, 2)
	if !strings.Contains(r.stderr, `unknown field "colour"`) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want one line naming the unknown field", r.stderr)
	}
	r = call(t, nil, payload, "--db", db, "--as", "ana", "record", "--json")
	wantExit(t, r, 2)
	if e := protocolError(t, r.stdout); e.Code != model.CodeInvalidRequest || e.Operation != "RECORD" {
		t.Errorf("error object = %+v", e)
	}
}

func TestShowJSONHasBothSidesAndTheRulesPicks(t *testing.T) {
	db := fieldWithConflict(t)
	d := showJSON(t, db, "conflict-001")
	if d.Conflict.Version != 1 || d.Conflict.Status != model.StatusDetected {
		t.Errorf("conflict = %+v", d.Conflict)
	}
	if d.A.Unit.ID != "mem-001" || d.B.Unit.ID != "mem-002" || d.B.Unit.Source.AgentID != "bob" {
		t.Errorf("sides = %s by %s, %s by %s", d.A.Unit.ID, d.A.Unit.Source.AgentID, d.B.Unit.ID, d.B.Unit.Source.AgentID)
	}
	if len(d.Picks) != 3 || len(d.Events) == 0 || len(d.Notifications) == 0 {
		t.Errorf("%d picks, %d events, %d notifications", len(d.Picks), len(d.Events), len(d.Notifications))
	}
	out := ok(t, "--db", db, "show", "conflict-001")
	for _, want := range []string{"version 1", "--expect-version 1", "confidence_weighted  mem-001 (A)", "p99 is 90 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
}

func TestMergeResolvesAndSupersedesTheLoser(t *testing.T) {
	db := fieldWithConflict(t)
	out := ok(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "confidence_weighted",
		"--winner", "A", "--rationale", "the benchmark is more careful", "--expect-version", "1")
	for _, want := range []string{"resolved conflict-001", "winner      mem-001 (A)", "superseded  mem-002", "notified    ana, bob"} {
		if !strings.Contains(out, want) {
			t.Errorf("merge output lacks %q:\n%s", want, out)
		}
	}
	d := showJSON(t, db, "conflict-001")
	if d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution == nil || *d.Conflict.Resolution.WinnerID != "mem-001" {
		t.Fatalf("conflict after merge = %+v", d.Conflict)
	}
	if d.B.Unit.Status != model.UnitSuperseded || d.A.Unit.Status != model.UnitActive {
		t.Errorf("units after merge: A %s, B %s; want active, superseded", d.A.Unit.Status, d.B.Unit.Status)
	}
}

func TestMergeJSONPrintsTheResponse(t *testing.T) {
	db := fieldWithConflict(t)
	var resp model.MergeResponse
	out := ok(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "synthesis",
		"--synthesis", "p99 is 40 ms in the lab and 90 ms in production", "--rationale", "both hold", "--json")
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("merge --json: %v", err)
	}
	if resp.Status != model.StatusResolved || resp.SideEffects.NewUnitID == nil || len(resp.SideEffects.SupersededUnits) != 2 {
		t.Errorf("merge --json = %+v", resp)
	}
}

func TestMergeOfResolvedConflictIsAProtocolError(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "not a conflict")

	r := arbiter(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "again")
	wantExit(t, r, 3)
	want := "arbiter: INVALID_TRANSITION: conflict-001 is already resolved (re-read the conflict)\n"
	if r.stderr != want || r.stdout != "" {
		t.Errorf("stderr = %q, stdout = %q; want stderr %q", r.stderr, r.stdout, want)
	}

	r = arbiter(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "again", "--json")
	wantExit(t, r, 3)
	e := protocolError(t, r.stdout)
	if e.Code != model.CodeInvalidTransition || e.Operation != "MERGE" || !e.Recoverable || e.SuggestedAction == "" {
		t.Errorf("error object = %+v", e)
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q, want nothing when the error is on stdout", r.stderr)
	}
}

func TestMergeOfMissingConflictIsAProtocolError(t *testing.T) {
	db := fieldWithConflict(t)
	r := arbiter(t, "--db", db, "--as", "lead", "merge", "conflict-404", "--strategy", "dismiss", "--rationale", "x")
	wantExit(t, r, 3)
	if !strings.HasPrefix(r.stderr, "arbiter: CONFLICT_NOT_FOUND: ") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	db := fieldWithConflict(t)
	for _, args := range [][]string{
		{"--db", db, "merge", "conflict-001", "--rationale", "no strategy"},
		{"--db", db, "merge", "conflict-001", "--strategy", "coin_toss", "--rationale", "x"},
		{"--db", db, "merge", "--strategy", "dismiss", "--rationale", "no id"},
		{"--db", db, "merge", "conflict-001", "--strategy", "synthesis", "--synthesis", "a", "--synthesis-file", "b", "--rationale", "x"},
		{"--db", db, "list", "--status", "lost"},
		{"--db", db, "list", "--no-such-flag"},
		{"--db", db, "show"},
		{"--db", db, "register", "--id", "x", "--role", "r", "--kind", "robot"},
		{"init", "--db", filepath.Join(t.TempDir(), "new.db"), "--tie", "maybe"},
		{"frobnicate"},
		{"list"},
	} {
		r := arbiter(t, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "arbiter: ") {
			t.Errorf("arbiter %s: exit %d, stderr %q; want exit 2 and one line", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// A request the field calls malformed exits 2, as a wrong command line
// does; a well-formed request the field refuses exits 3.
func TestMalformedValuesExitTwoAndRefusalsThree(t *testing.T) {
	db := fieldWithConflict(t)
	before := sha(t, db)
	for _, tc := range []struct {
		exit int
		args []string
	}{
		{2, []string{"--as", "op", "merge", "conflict-001", "--strategy", "dismiss"}},
		{2, []string{"--as", "op", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", ""}},
		{2, []string{"--as", "op", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "  "}},
		{2, []string{"--as", "op", "merge", "conflict-001", "--strategy", "confidence_weighted", "--winner", "C", "--rationale", "x"}},
		{2, []string{"--as", "op", "merge", "conflict-001", "--strategy", "confidence_weighted", "--rationale", "x"}},
		{2, []string{"--as", "op", "merge", "conflict-001", "--strategy", "synthesis", "--rationale", "x"}},
		{3, []string{"--as", "bob", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x"}},
		{3, []string{"--as", "op", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x", "--expect-version", "9"}},
		{3, []string{"--as", "op", "merge", "conflict-001", "--strategy", "confidence_weighted", "--winner", "B", "--rationale", "x"}},
		{3, []string{"--as", "op", "vote", "conflict-001", "--for", "A", "--rationale", "x"}},
		{3, []string{"--as", "nobody", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x"}},
	} {
		r := arbiter(t, append([]string{"--db", db}, tc.args...)...)
		if r.code != tc.exit || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("arbiter %s: exit %d, stderr %q; want exit %d and one line", strings.Join(tc.args, " "), r.code, r.stderr, tc.exit)
		}
	}
	if sha(t, db) != before {
		t.Error("refused requests changed the field")
	}
}

func TestMissingFieldExitsOneAndCreatesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "nowhere.db")
	r := arbiter(t, "--db", db, "list")
	wantExit(t, r, 1)
	if r.stderr != fmt.Sprintf("arbiter: %s: no such field (create one with `arbiter init --db %s`)\n", db, db) {
		t.Errorf("stderr = %q", r.stderr)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing field was created (stat: %v)", err)
	}
}

func TestReadOnlyMergeIsRefusedAndChangesNoByte(t *testing.T) {
	db := fieldWithConflict(t)
	before := sha(t, db)
	r := arbiter(t, "--db", db, "--as", "lead", "--read-only", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x")
	wantExit(t, r, 3)
	if !strings.HasPrefix(r.stderr, "arbiter: READ_ONLY: ") {
		t.Errorf("stderr = %q", r.stderr)
	}
	r = call(t, []string{"ARBITER_READ_ONLY=true", "ARBITER_DB=" + db, "ARBITER_AS=lead"}, "",
		"merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x", "--json")
	wantExit(t, r, 3)
	if e := protocolError(t, r.stdout); e.Code != model.CodeReadOnly {
		t.Errorf("error object = %+v", e)
	}
	if sha(t, db) != before {
		t.Error("a refused read-only merge changed the field's bytes")
	}
}

func TestUnwritableFieldOpensReadOnlyWithANotice(t *testing.T) {
	db := fieldWithConflict(t)
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	r := arbiter(t, "--db", db, "list")
	wantExit(t, r, 0)
	if r.stderr != "arbiter: opened read-only: the file is not writable\n" {
		t.Errorf("stderr = %q", r.stderr)
	}
	r = arbiter(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x")
	wantExit(t, r, 3)
}

func TestVoteFlowClosesAtQuorum(t *testing.T) {
	db := fieldWithConflict(t)
	out := ok(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "vote", "--rationale", "let the seniors decide")
	if !strings.Contains(out, "put conflict-001 to a vote (now version 2)") {
		t.Errorf("merge --strategy vote output:\n%s", out)
	}
	out = ok(t, "--db", db, "--as", "ana", "vote", "conflict-001", "--for", "A", "--rationale", "lab numbers")
	for _, want := range []string{"ana cast ballot on conflict-001: for mem-001 (A)", "1 of quorum 2", "stays open"} {
		if !strings.Contains(out, want) {
			t.Errorf("first ballot output lacks %q:\n%s", want, out)
		}
	}
	out = ok(t, "--db", db, "--as", "ana", "vote", "conflict-001", "--for", "B", "--rationale", "production wins", "--expect-version", "2")
	if !strings.Contains(out, "ana changed ballot on conflict-001: for mem-002 (B)") {
		t.Errorf("changed ballot output:\n%s", out)
	}
	var resp model.VoteResponse
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "--as", "lead", "vote", "conflict-001", "--for", "mem-002",
		"--rationale", "agreed", "--json")), &resp); err != nil {
		t.Fatalf("vote --json: %v", err)
	}
	if !resp.Closed || resp.Status != model.StatusResolved || resp.Tally.ForB != 2 {
		t.Errorf("closing ballot = %+v", resp)
	}
	d := showJSON(t, db, "conflict-001")
	if r := d.Conflict.Resolution; r == nil || r.Strategy != model.Vote || *r.WinnerID != "mem-002" {
		t.Errorf("resolution = %+v", d.Conflict.Resolution)
	}
	if d.A.Unit.Status != model.UnitSuperseded {
		t.Errorf("the outvoted unit is %s, want superseded", d.A.Unit.Status)
	}
}

func TestStaleExpectVersionIsRefused(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "vote", "--rationale", "vote", "--expect-version", "1")
	for _, args := range [][]string{
		{"--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x", "--expect-version", "1", "--json"},
		{"--db", db, "--as", "ana", "vote", "conflict-001", "--for", "A", "--rationale", "x", "--expect-version", "1", "--json"},
	} {
		r := arbiter(t, args...)
		wantExit(t, r, 3)
		if e := protocolError(t, r.stdout); e.Code != model.CodeInvalidTransition || !strings.Contains(e.Message, "you saw version 1") {
			t.Errorf("arbiter %s: error object = %+v", strings.Join(args, " "), e)
		}
	}
	if d := showJSON(t, db, "conflict-001"); len(d.Ballots) != 0 || d.Conflict.Version != 2 {
		t.Errorf("after stale decisions: %d ballots, version %d; want none, 2", len(d.Ballots), d.Conflict.Version)
	}
}

func TestTerminalEscapesInFieldTextAreShownInert(t *testing.T) {
	db := newField(t)
	record(t, db, "ana", recordPayload("p99 is 40 ms", 0.9, ""))
	evil := "copy this\x1b]52;c;SGVsbG8=\x07 then clear\x1b[2J and \u009b31m red"
	payload := strings.Replace(recordPayload(evil, 0.6, "mem-001"), "the two measurements disagree", "desc\\u001b[2J", 1)
	record(t, db, "bob", payload)

	out := ok(t, "--db", db, "show", "conflict-001")
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Errorf("show printed a raw control character:\n%q", out)
	}
	if !strings.Contains(out, "␛]52;c;SGVsbG8=␇") || !strings.Contains(out, "␛[2J") {
		t.Errorf("show does not show the escape attempt inert:\n%s", out)
	}
	list := ok(t, "--db", db, "list", "--status", "all")
	if strings.ContainsRune(list, '\x1b') || !strings.Contains(list, "desc␛[2J") {
		t.Errorf("list output:\n%q", list)
	}
	js := ok(t, "--db", db, "show", "conflict-001", "--json")
	if strings.ContainsAny(js, "\x1b\x07\u009b") || !strings.Contains(js, `\u001b]52`) || !strings.Contains(js, `\u009b31m`) {
		t.Errorf("show --json does not escape the controls:\n%s", js)
	}
}

func TestInboxListsTheCallersNotifications(t *testing.T) {
	db := fieldWithConflict(t)
	var ns []model.Notification
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "--as", "ana", "inbox", "--json")), &ns); err != nil {
		t.Fatalf("inbox --json: %v", err)
	}
	if len(ns) != 1 || ns[0].Event != model.EventConflictDetected || ns[0].AgentID != "ana" {
		t.Fatalf("ana's inbox = %+v", ns)
	}
	out := ok(t, "--db", db, "--as", "ana", "inbox", "--since", fmt.Sprint(ns[0].ID))
	if !strings.Contains(out, "no notifications for ana") {
		t.Errorf("inbox --since the last id:\n%s", out)
	}
	r := arbiter(t, "--db", db, "--as", "nobody", "inbox")
	wantExit(t, r, 3)
}

func TestSettingsComeFromTheEnvironmentAndConfigFile(t *testing.T) {
	db := fieldWithConflict(t)
	cfg := filepath.Join(t.TempDir(), "arbiter.yaml")
	if err := os.WriteFile(cfg, []byte("db: "+db+"\nas: ana\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := call(t, []string{"ARBITER_CONFIG=" + cfg}, "", "inbox")
	wantExit(t, r, 0)
	r = call(t, []string{"ARBITER_AS=nobody"}, "", "--config", cfg, "inbox")
	wantExit(t, r, 3) // the environment's --as beats the file's

	if err := os.WriteFile(cfg, []byte("db: [oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = arbiter(t, "--config", cfg, "list")
	wantExit(t, r, 1)
	if !strings.Contains(r.stderr, "malformed") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want one line about the malformed file", r.stderr)
	}
}

func TestBareArbiterWithoutATerminalPrintsTheQueue(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "--as", "lead", "merge", "conflict-001", "--strategy", "human_escalation", "--rationale", "ask a person")
	for _, args := range [][]string{{"--db", db}, {"--db", db, "--as", "op"}} {
		out := ok(t, args...)
		if !strings.Contains(out, "conflict-001") || !strings.Contains(out, "No terminal") {
			t.Errorf("arbiter %s printed:\n%s", strings.Join(args, " "), out)
		}
	}
	wantExit(t, arbiter(t, "--db", db, "--as", "nobody"), 3)
	wantExit(t, arbiter(t), 2)
}

func TestInitDemoThatFailsLeavesNoFile(t *testing.T) {
	// Room for an empty field, not for the demo in it.
	db := filepath.Join(tinyDisk(t, 450<<10), "demo.db")
	r := arbiter(t, "init", "--db", db, "--demo")
	wantExit(t, r, 1)
	if !strings.Contains(r.stderr, "the file was removed") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr = %q", r.stderr)
	}
	if matches, _ := filepath.Glob(db + "*"); len(matches) != 0 {
		t.Errorf("left behind: %v", matches)
	}
}

func TestShowTakesAUnitIDToo(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "synthesis",
		"--synthesis", "p99 is **40 ms** in the lab and 90 ms in production.", "--rationale", "both hold")
	out := ok(t, "--db", db, "show", "mem-003")
	for _, want := range []string{"mem-003  synthesis, committed, active", "by          op (operator), human, authority 10",
		"relation    elaborates mem-001: synthesis of conflict-001", "p99 is **40 ms** in the lab and 90 ms in production."} {
		if !strings.Contains(out, want) {
			t.Errorf("show mem-003 lacks %q:\n%s", want, out)
		}
	}
	out = ok(t, "--db", db, "show", "mem-001")
	for _, want := range []string{"superseded", "from        mem-002 contradicts", "from        mem-003 elaborates",
		"conflict    conflict-001 (A) resolved against mem-002, synthesis by op"} {
		if !strings.Contains(out, want) {
			t.Errorf("show mem-001 lacks %q:\n%s", want, out)
		}
	}
	var d model.UnitDetail
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "show", "mem-002", "--json")), &d); err != nil {
		t.Fatal(err)
	}
	if d.Unit.ID != "mem-002" || d.Unit.Status != model.UnitSuperseded || len(d.Conflicts) != 1 || d.Agent == nil || d.Agent.ID != "bob" {
		t.Errorf("show mem-002 --json = %+v", d)
	}
	r := arbiter(t, "--db", db, "show", "mem-404")
	wantExit(t, r, 3)
	if !strings.Contains(r.stderr, `UNIT_NOT_FOUND: there is no unit "mem-404"`) {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestAgentsSayWhatEachMayDo(t *testing.T) {
	db := newField(t)
	out := ok(t, "--db", db, "agents")
	for _, want := range []string{"ana   analyst   agent          6  record, decide, vote",
		"bob   analyst   agent          4  record\n",
		"op    operator  human         10  record, decide, decide escalated, vote, authority over every type"} {
		if !strings.Contains(out, want) {
			t.Errorf("agents lacks %q:\n%s", want, out)
		}
	}
	var rows []struct {
		ID  string             `json:"id"`
		May model.Capabilities `json:"may"`
	}
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "agents", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[1].ID != "bob" || rows[1].May.Decide || !rows[1].May.Record || !rows[3].May.DecideEscalated {
		t.Errorf("agents --json = %+v", rows)
	}
}

func TestReopenTakesADecisionBackAndTheConflictIsDecidedAgain(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "confidence_weighted", "--winner", "A", "--rationale", "surer")
	r := arbiter(t, "--db", db, "--as", "ana", "reopen", "conflict-001", "--rationale", "wrong")
	wantExit(t, r, 3)
	out := ok(t, "--db", db, "--as", "op", "reopen", "conflict-001", "--rationale", "the lab run was misread")
	for _, want := range []string{"reopened conflict-001: escalated again (now version 3)", "undone      confidence_weighted by op",
		"restored    mem-002", "notified    ana, bob, op"} {
		if !strings.Contains(out, want) {
			t.Errorf("reopen lacks %q:\n%s", want, out)
		}
	}
	ok(t, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "authority", "--winner", "B", "--rationale", "production wins",
		"--expect-version", "3")
	d := showJSON(t, db, "conflict-001")
	if d.A.Unit.Status != model.UnitSuperseded || d.B.Unit.Status != model.UnitActive || *d.Conflict.Resolution.WinnerID != "mem-002" {
		t.Errorf("after deciding again: A %s, B %s, %+v", d.A.Unit.Status, d.B.Unit.Status, d.Conflict.Resolution)
	}
}

// Without a terminal, arbiter prints commands that work for the person
// named, on the first conflict that is theirs to act on; someone with
// nothing to do is told who has.
func TestTheHintWithoutATerminalNamesCommandsThatWork(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	run := func(as, fill string) {
		t.Helper()
		out := ok(t, "--db", db, "--as", as)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		last := strings.TrimSpace(lines[len(lines)-1])
		if !strings.HasPrefix(last, "arbiter --db ") {
			t.Fatalf("as %s the last line is no command:\n%s", as, out)
		}
		cmd := strings.Fields(last)[1:]
		for i, f := range cmd { // up to the first flag the person fills in
			if f == "--strategy" || f == "--for" {
				cmd = cmd[:i]
				break
			}
		}
		r := arbiter(t, append(cmd, strings.Fields(fill)...)...)
		if r.code != 0 {
			t.Errorf("as %s, the hint %q does not work: exit %d, %s", as, last, r.code, r.stderr)
		}
	}
	run("ops-maya", "--strategy dismiss --rationale checked")
	// The demo routes interpretive escalations to lead-priya, who
	// decides them; then she has a ballot to cast.
	run("lead-priya", "--strategy dismiss --rationale checked")
	run("lead-priya", "--for A --rationale checked")
	out := ok(t, "--db", db, "--as", "res-iris")
	if !strings.Contains(out, "conflict-009 waits for lead-tomas (its owner) or a human operator (ops-maya)") ||
		!strings.Contains(out, "conflict-015, conflict-016 wait for the eligible voters (lead-kenji, lead-priya, lead-tomas)") {
		t.Errorf("as res-iris:\n%s", out)
	}
}
