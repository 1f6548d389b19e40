package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/sqlite"
)

func supersedes(content, target string) string {
	p := recordPayload(content, 0.7, "")
	return strings.Replace(p, `"relations":[]`, `"relations":[{"type":"supersedes","target_id":"`+target+`"}]`, 1)
}

func joinReport(t *testing.T, args ...string) model.JoinReport {
	t.Helper()
	r := arbiter(t, append(args, "--json")...)
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	var rep model.JoinReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("join --json: %v\n%s", err, r.stdout)
	}
	return rep
}

// A team's field on a server is forked to a file; both sides work; the
// fork is joined back through the command line: its new units, a
// revision both sides made (a conflict with its ancestor), a decision
// taken in the fork only, and text meant to drive a terminal, shown
// inert.
func TestForkAServerFieldToAFileAndJoinItBack(t *testing.T) {
	file := fieldWithConflict(t)
	server := serverField(t)
	copySummary(t, file, server)
	fork := filepath.Join(t.TempDir(), "site-b.db")
	r := arbiter(t, "--db", server, "fork", "--to", fork)
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	if !strings.Contains(r.stdout, "forked ") || !strings.Contains(r.stdout, "join it back with") {
		t.Fatalf("fork printed:\n%s", r.stdout)
	}
	record(t, fork, "ana", supersedes("p99 is 45 ms, measured again", "mem-001"))
	evil := "clear\x1b[2J then \x1b]52;c;SGVsbG8=\x07 copy"
	record(t, fork, "bob", recordPayload(evil, 0.5, ""))
	ok(t, "--db", fork, "--as", "op", "merge", "conflict-001", "--strategy", "authority", "--winner", "A",
		"--rationale", "the lab's figure \x1b[31mholds")
	record(t, server, "bob", supersedes("p99 is 60 ms in production", "mem-001"))

	dry := joinReport(t, "--db", server, "--as", "op", "join", fork, "--dry-run")
	if !dry.DryRun || dry.UnitsAdded != 2 || len(dry.RevisionConflicts) != 1 || dry.Divergence.Field.Added != 1 {
		t.Fatalf("dry run: %+v", dry)
	}
	if again := joinReport(t, "--db", server, "--as", "op", "join", fork, "--dry-run"); again.UnitsAdded != 2 {
		t.Fatalf("a second dry run found %+v: the first wrote something", again)
	}
	rep := joinReport(t, "--db", server, "--as", "op", "join", fork)
	if rep.UnitsAdded != 2 || rep.UnitsRenamed != 1 || len(rep.RevisionConflicts) != 1 ||
		len(rep.DecisionsTaken) != 1 || rep.DecisionsTaken[0] != "conflict-001" {
		t.Fatalf("join: %+v", rep)
	}
	revision := rep.RevisionConflicts[0]
	d := showJSON(t, server, revision)
	if d.Ancestor == nil || d.Ancestor.UnitID != "mem-001" || d.Conflict.Status != model.StatusEscalated {
		t.Fatalf("%s: %+v, ancestor %+v", revision, d.Conflict, d.Ancestor)
	}
	out := ok(t, "--db", server, "show", revision)
	if !strings.Contains(out, "came from joining "+fork+": both sides revised") {
		t.Fatalf("show %s does not say it came from the join:\n%s", revision, out)
	}
	taken := ok(t, "--db", server, "show", "conflict-001")
	if !strings.Contains(taken, "decided in the fork only, by op") || strings.ContainsAny(taken, "\x1b\x07") ||
		!strings.Contains(taken, "␛[31mholds") {
		t.Fatalf("show conflict-001:\n%q", taken)
	}
	var hostile string
	for _, id := range []string{"mem-004", "mem-005"} {
		out := ok(t, "--db", server, "show", id)
		if strings.Contains(out, "clear␛[2J") {
			hostile = out
		}
	}
	if hostile == "" || strings.ContainsAny(hostile, "\x1b\x07") || !strings.Contains(hostile, "joined      from "+fork+" as mem-00") {
		t.Fatalf("the fork's hostile unit, shown here:\n%q", hostile)
	}
	again := arbiter(t, "--db", server, "--as", "op", "join", fork)
	wantExit(t, again, 0)
	if !strings.Contains(again.stdout, "nothing new in "+fork) {
		t.Fatalf("joining again: %s", again.stdout)
	}
}

// A field that is not a fork of this one is refused in one line, and
// the field is left as it was; --base-epoch joins it anyway.
func TestJoinRefusesAFileThatIsNotAForkInOneLine(t *testing.T) {
	db := fieldWithConflict(t)
	other := newField(t)
	record(t, other, "ana", recordPayload("a stranger's finding", 0.5, ""))
	before := sha(t, db)
	r := arbiter(t, "--db", db, "--as", "op", "join", other)
	wantExit(t, r, 2)
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "is not a fork of this field") || r.stdout != "" {
		t.Fatalf("stderr %q, stdout %q", r.stderr, r.stdout)
	}
	if sha(t, db) != before {
		t.Fatal("a refused join changed the field")
	}
	r = arbiter(t, "--db", db, "--as", "ana", "join", other, "--base-epoch", "0")
	wantExit(t, r, 3) // not a human operator
	rep := joinReport(t, "--db", db, "--as", "op", "join", other, "--base-epoch", "4")
	if rep.UnitsAdded != 1 {
		t.Fatalf("joined with --base-epoch: %+v", rep)
	}
	wantExit(t, arbiter(t, "--db", db, "--as", "op", "join", filepath.Join(t.TempDir(), "none.db")), 2)
	wantExit(t, arbiter(t, "--db", db, "join", other), 2) // nobody to act as
}

// A fork written by another program, with an agent whose id would drive a
// terminal: the join is refused in one line, shown inert, and writes
// nothing.
func TestJoinRefusesAForkAgentItCannotRegister(t *testing.T) {
	db := fieldWithConflict(t)
	fork := filepath.Join(t.TempDir(), "fork.db")
	ok(t, "--db", db, "fork", "--to", fork)
	st, err := sqlite.Open(context.Background(), fork, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Write(context.Background(), func(tx store.Tx) error {
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		return tx.AgentInsert(model.Agent{ID: "evil\x1b[2J", Role: "r", Kind: model.KindAgent, Authority: 4, Status: model.AgentIdle}, epoch)
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	before := sha(t, db)
	r := arbiter(t, "--db", db, "--as", "op", "join", fork)
	if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || strings.ContainsRune(r.stderr, '\x1b') ||
		!strings.Contains(r.stderr, `the fork's agent "evil\x1b[2J" cannot be registered`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if sha(t, db) != before {
		t.Fatal("a refused join changed the field")
	}
}
