package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// wantLine checks that r exited with code and said, in one line on
// stderr, everything in want and nothing in not.
func wantLine(t *testing.T, what string, r result, code int, want []string, not ...string) {
	t.Helper()
	if r.code != code || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("%s: exit %d, stderr %q; want exit %d and one line", what, r.code, r.stderr, code)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("%s: stderr %q does not say %q", what, r.stderr, w)
		}
	}
	for _, n := range not {
		if strings.Contains(r.stderr, n) {
			t.Errorf("%s: stderr %q says %q", what, r.stderr, n)
		}
	}
}

func TestAMistypedCommandSuggestsTheRightOne(t *testing.T) {
	wantLine(t, "lst", arbiter(t, "lst"), 2, []string{`unknown command "lst"`, "did you mean list?"})
	wantLine(t, "policy st", arbiter(t, "policy", "st"), 2, []string{"did you mean set?"})
	wantLine(t, "xyzzy", arbiter(t, "xyzzy"), 2, []string{`unknown command "xyzzy"`}, "did you mean")
}

// Every command that acts as someone refuses to run without --as as a
// usage error, exit 2, as the exit-code table says of a missing setting.
func TestEveryCommandThatActsNeedsAsAndExitsTwoWithout(t *testing.T) {
	db := fieldWithConflict(t)
	before := sha(t, db)
	for _, args := range [][]string{
		{"record"},
		{"merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x"},
		{"vote", "conflict-001", "--for", "A", "--rationale", "x"},
		{"reopen", "conflict-001", "--rationale", "x"},
		{"approve", "conflict-001", "--rationale", "x"},
		{"rework", "conflict-001", "--rationale", "x"},
		{"inbox"},
		{"policy", "set", "--vote-min-ballots", "2"},
		{"mcp"},
		{"join", db},
		{"keys", "add", "ana", "ana.pub"},
		{"keys", "remove", "ana", "SHA256:x"},
		{"tokens", "issue", "ana"},
		{"tokens", "revoke", "ana"},
	} {
		r := call(t, nil, recordPayload("p99 is 50 ms", 0.5, ""), append([]string{"--db", db}, args...)...)
		wantLine(t, args[0], r, 2, []string{"--as ID"}, "AGENT_NOT_REGISTERED")
	}
	if sha(t, db) != before {
		t.Error("a command refused for want of --as changed the field")
	}
}

func TestAFlagsBadValueIsRefusedInPlainWords(t *testing.T) {
	db := fieldWithConflict(t)
	r := arbiter(t, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "x", "--expect-version", "abc")
	wantLine(t, "--expect-version abc", r, 2, []string{`--expect-version "abc" is not a whole number`}, "strconv", "ParseInt")
	r = arbiter(t, "--db", db, "list", "--json=maybe")
	wantLine(t, "--json=maybe", r, 2, []string{`--json "maybe" is not true or false`}, "strconv")
}

// A missing field in a missing directory is not advised to init, which
// would fail; a missing field in a directory that exists is.
func TestAMissingFieldIsAdvisedInitOnlyWhereInitWorks(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "no", "such", "dir", "x.db")
	wantLine(t, "list", arbiter(t, "--db", gone, "list"), 1, []string{"no such field", "no directory " + filepath.Dir(gone)}, "arbiter init")
	wantLine(t, "init", arbiter(t, "init", "--db", gone), 1, []string{"there is no directory " + filepath.Dir(gone)})
	here := filepath.Join(t.TempDir(), "x.db")
	wantLine(t, "list", arbiter(t, "--db", here, "list"), 1, []string{"arbiter init --db " + here})
	ok(t, "init", "--db", here)
	wantLine(t, "init again", arbiter(t, "init", "--db", here), 1, []string{"already exists", "use it with --db " + here})
}

func TestShowOfAMissingUnitIsUnitNotFound(t *testing.T) {
	db := fieldWithConflict(t)
	wantLine(t, "show mem-404", arbiter(t, "--db", db, "show", "mem-404"), 3, []string{`UNIT_NOT_FOUND: there is no unit "mem-404"`}, "conflict or unit")
	wantLine(t, "show conflict-404", arbiter(t, "--db", db, "show", "conflict-404"), 3, []string{`CONFLICT_NOT_FOUND: there is no conflict "conflict-404"`})
}

func TestDemoOnAFieldThatIsNotTheDemoSaysSo(t *testing.T) {
	db := newField(t)
	before := sha(t, db)
	r := arbiter(t, "demo", "--db", db)
	wantLine(t, "demo --db", r, 1, []string{db + " is not the demo's field", "without --db"}, "registered agent")
	if sha(t, db) != before {
		t.Error("demo changed a field that is not the demo's")
	}
}

func TestCopysRefusalsNameTheirSide(t *testing.T) {
	dir := t.TempDir()
	src := fieldWithConflict(t)
	nope := filepath.Join(dir, "nope.db")
	to := filepath.Join(dir, "to.db")
	wantLine(t, "copy --from nope.db", arbiter(t, "copy", "--from", nope, "--to", to), 1, []string{"--from " + nope + ": no such field to copy"}, "init")
	if _, err := os.Stat(to); err == nil {
		t.Error("a copy from a missing field created its destination")
	}
	full := fieldWithConflict(t)
	before := sha(t, full)
	r := arbiter(t, "copy", "--from", src, "--to", full)
	wantLine(t, "copy into a field", r, 3, []string{"--to " + full + " is a field that is not empty", "4 agents, 2 units and 1 conflict"})
	if n := strings.Count(r.stderr, "new "); n != 1 {
		t.Errorf("copy into a field advises %d times: %q", n, r.stderr)
	}
	if sha(t, full) != before {
		t.Error("a refused copy changed its destination")
	}
}

func TestListWithoutAFieldAfterTheDemoNamesTheDemosField(t *testing.T) {
	data := t.TempDir()
	env := []string{"XDG_DATA_HOME=" + data}
	wantLine(t, "list before the demo", call(t, env, "", "list"), 2, []string{"no field given: use --db FILE or ARBITER_DB"}, "demo")
	wantExit(t, call(t, env, "", "demo"), 0)
	demo := filepath.Join(data, "arbiter", "demo.db")
	wantLine(t, "list after the demo", call(t, env, "", "list"), 2, []string{"no field given", "--db " + demo})
	wantLine(t, "init without --db", call(t, env, "", "init"), 2, []string{"no field given"}, "demo")
}

// A decisions file whose last line is whole (it ends in a newline) but
// not JSON is refused naming the line, as the same line anywhere else
// is; nothing is applied.
func TestApplyRefusesACompleteBadLastLine(t *testing.T) {
	db := fieldWithConflict(t)
	before := sha(t, db)
	file := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(file, []byte("{\"protocol\":\"akashik\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantLine(t, "apply", arbiter(t, "--db", db, "apply", file), 1, []string{"line 1", "invalid JSON"}, "torn")
	if sha(t, db) != before {
		t.Error("a refused apply changed the field")
	}
}

// Without --as the screen says it only looks, and how to decide.
func TestTheScreenWithoutAsSaysHowToDecide(t *testing.T) {
	dir, err := os.MkdirTemp("", "s") // a short path: the header fits 80 columns
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	good := bigField(t, dir, 0)
	out, code := onTerminal(t, "q", "--db", good)
	if code != 0 || !strings.Contains(out, "read-only: decide with --as ID") {
		t.Errorf("exit %d; the screen without --as does not say how to decide:\n%q", code, out)
	}
}

// On a terminal, record without a file says what it waits for, and
// ctrl+c ends it, recording nothing.
func TestRecordOnATerminalSaysWhatItWaitsForAndCtrlCEndsIt(t *testing.T) {
	db := newField(t)
	s := newTmux(t, 120, 20, nil, "--db", db, "--as", "ana", "record")
	s.waitFor("reading a RECORD payload from standard input; end it with ctrl+d")
	s.send("C-c")
	scr := s.waitFor("[arbiter exited")
	if !strings.Contains(scr, "interrupted: nothing was written") || !strings.Contains(scr, "[arbiter exited 130]") {
		t.Errorf("ctrl+c did not end record with exit 130 and a word:\n%s", scr)
	}
	if out := ok(t, "--db", db, "list", "--status", "all", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("an interrupted record left something: %s", out)
	}
	// From a pipe, it reads as before, without a word.
	r := call(t, nil, recordPayload("p99 is 40 ms", 0.9, ""), "--db", db, "--as", "ana", "record")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "recorded mem-001") {
		t.Errorf("record from a pipe: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// The inbox's next command works as printed: with --db and --as when the
// command line gave them.
func TestInboxNamesANextCommandThatWorksAsGiven(t *testing.T) {
	db := fieldWithConflict(t)
	out := ok(t, "--db", db, "--as", "ana", "inbox", "--limit", "1")
	i := strings.Index(out, "next: ")
	if i < 0 {
		t.Fatalf("inbox prints no next command:\n%s", out)
	}
	next := strings.Fields(strings.TrimSpace(out[i+len("next: "):]))
	want := []string{"arbiter", "--db", db, "--as", "ana", "inbox", "--limit", "1", "--since"}
	if len(next) != len(want)+1 || !slices.Equal(next[:len(want)], want) {
		t.Fatalf("next: %q, want %q N", next, want)
	}
	r := arbiter(t, next[1:]...)
	if r.code != 0 || strings.Contains(r.stdout, "#"+next[len(next)-1]+" ") {
		t.Errorf("the next command: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// From the environment, the environment gives them again.
	r = call(t, []string{"ARBITER_DB=" + db, "ARBITER_AS=ana"}, "", "inbox")
	if r.code != 0 || !strings.Contains(r.stdout, "next: arbiter inbox --since ") {
		t.Errorf("inbox from the environment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// An --as that names nobody is an error for every command, and names the
// registered ids it may be a slip for.
func TestAnUnknownAsIsRefusedEverywhereWithTheNamesItMayMean(t *testing.T) {
	db := newField(t)
	ok(t, "--db", db, "register", "--id", "ops-maya", "--role", "operator", "--kind", "human", "--authority", "10")
	before := sha(t, db)
	for _, args := range [][]string{{"list"}, {"agents"}, {"show", "conflict-001"}, {"stats"}, {"inbox"}, {"policy"}, {"hooks", "list"}} {
		r := arbiter(t, append([]string{"--db", db, "--as", "ops-mya"}, args...)...)
		wantLine(t, strings.Join(args, " "), r, 3, []string{`AGENT_NOT_REGISTERED: "ops-mya" is not a registered agent`, "did you mean ops-maya?"}, "register first")
	}
	r := call(t, nil, recordPayload("p99 is 40 ms", 0.9, ""), "--db", db, "--as", "ann", "record")
	wantLine(t, "record --as ann", r, 3, []string{"did you mean ana?"})
	r = arbiter(t, "--db", db, "--as", "zed", "list")
	wantLine(t, "list --as zed", r, 3, []string{`"zed" is not a registered agent`, "`arbiter agents` lists who is registered"}, "did you mean")
	if sha(t, db) != before {
		t.Error("a refused --as changed the field")
	}
}

func TestVersionNamesTheBuild(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := arbiter(t, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "arbiter ") || !strings.Contains(r.stdout, runtime.Version()) ||
			strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("arbiter %s: exit %d, stdout %q, stderr %q", args[0], r.code, r.stdout, r.stderr)
		}
	}
}

func TestInitOnADirectorySaysItIsOne(t *testing.T) {
	dir := t.TempDir()
	wantLine(t, "init --db DIR", arbiter(t, "init", "--db", dir), 1, []string{dir + ": is a directory", filepath.Join(dir, "field.db")}, "already exists")
}

// Nothing answering at a server's address is told with what to check.
func TestAServerThatIsDownIsToldWithWhatToCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	url := fmt.Sprintf("postgres://arbiter@127.0.0.1:%d/team?connect_timeout=5", port)
	wantLine(t, "list on a server that is down", arbiter(t, "--db", url, "list"), 1,
		[]string{"cannot be reached", "check that the PostgreSQL server runs and listens at host 127.0.0.1, port " + fmt.Sprint(port),
			fmt.Sprintf("pg_isready -h 127.0.0.1 -p %d", port)})
}

func TestAMistypedFlagOrIdIsToldWhatWorks(t *testing.T) {
	db := fieldWithConflict(t)
	wantLine(t, "list --stauts", arbiter(t, "--db", db, "list", "--stauts", "all"), 2, []string{"unknown flag: --stauts", "did you mean --status?"})
	wantLine(t, "list --zzz", arbiter(t, "--db", db, "list", "--zzz"), 2, []string{"unknown flag: --zzz"}, "did you mean")
	r := arbiter(t, "--db", db, "--as", "op", "merge", "conflict-999", "--strategy", "dismiss", "--rationale", "x")
	wantLine(t, "merge conflict-999", r, 3, []string{`there is no conflict "conflict-999"`, "arbiter list --status all"})
}

func TestSmallRefusalsSayWhatTheyMean(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.db")
	if out := ok(t, "gen", "--db", small, "--units", "10"); !strings.Contains(out, "built "+small) {
		t.Errorf("gen --units 10:\n%s", out)
	}
	wantLine(t, "gen --conflicts 1", arbiter(t, "gen", "--db", filepath.Join(dir, "g.db"), "--units", "10", "--conflicts", "1"), 2,
		[]string{"1 conflict needs at least 12 units"})
	db := fieldWithConflict(t)
	wantLine(t, "fork --to EXISTING", arbiter(t, "--db", db, "fork", "--to", small), 2, []string{"--to " + small + " exists already"}, "INVALID_TRANSITION")
	r := arbiter(t, "copy", "--from", db, "--to", small)
	wantLine(t, "copy into a field", r, 3, []string{"--to " + small + " is a field that is not empty", " agents, 10 units and 0 conflicts", "nothing was copied"})
}

// A join is previewed by anyone who may read the field, on a field open
// read-only too; the report counts in words that agree with the counts.
func TestAJoinIsPreviewedWithoutAsAndItsReportReadsRight(t *testing.T) {
	dir := t.TempDir()
	db := fieldWithConflict(t)
	fork := filepath.Join(dir, "fork.db")
	ok(t, "--db", db, "fork", "--to", fork)
	record(t, fork, "ana", recordPayload("p99 is 45 ms", 0.8, ""))
	before := sha(t, db)
	for _, extra := range [][]string{nil, {"--read-only"}} {
		out := ok(t, append([]string{"--db", db, "join", fork, "--dry-run"}, extra...)...)
		for _, want := range []string{`\(dry run: nothing written\)`, `units added +1 \(0 under new ids\)`, `the fork did +1 unit added,`} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("join --dry-run %v lacks %q:\n%s", extra, want, out)
			}
		}
		if m := regexp.MustCompile(`epochs (\d+) to (\d+)`).FindStringSubmatch(out); m != nil && m[1] == m[2] {
			t.Errorf("a single epoch is written as a range:\n%s", out)
		}
	}
	if sha(t, db) != before {
		t.Error("a join's preview changed the field")
	}
	wantLine(t, "join without --as", arbiter(t, "--db", db, "join", fork), 2, []string{"--as ID", "--dry-run previews"})
	out := ok(t, "--db", db, "--as", "op", "join", fork)
	if !strings.Contains(out, "joined ") || !regexp.MustCompile(`units added +1 `).MatchString(out) {
		t.Errorf("the join:\n%s", out)
	}
}
