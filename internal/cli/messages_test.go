package cli

import (
	"os"
	"path/filepath"
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
	wantLine(t, "copy into a field", r, 3, []string{"--to " + full + ": the destination is not empty"})
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
