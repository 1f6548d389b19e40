package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/model"
)

// secret is the password every connection string of these tests carries:
// the throwaway server trusts its users and never asks for it, and
// arbiter must never print it.
const secret = "Sup3r-s3cret-pw"

// serverField is the name of a field no one has made yet on the test
// server, with a password in it.
func serverField(t *testing.T) string {
	t.Helper()
	return pgtest.WithParam(pgtest.Field(t), "password", secret)
}

func wantNoSecret(t *testing.T, r result) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatalf("the password shows:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
}

func copySummary(t *testing.T, from, to string) copyJSON {
	t.Helper()
	r := arbiter(t, "copy", "--from", from, "--to", to, "--json")
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	var got copyJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("copy --json: %v\n%s", err, r.stdout)
	}
	return got
}

// A team moves its file onto a server; someone copies the server's field
// to a laptop, decides offline, and applies the decisions back on the
// server. Every copy holds the same field: the same digest.
func TestCopyBetweenAFileAndAServerAndApplyBack(t *testing.T) {
	file := fieldWithConflict(t)
	record(t, file, "ana", recordPayload("the cache is warm", 0.7, ""))
	record(t, file, "bob", recordPayload("the cache is cold", 0.5, "mem-003"))
	ok(t, "--db", file, "--as", "bob", "merge", "conflict-002", "--strategy", "human_escalation", "--rationale", "people")
	ok(t, "--db", file, "--as", "op", "merge", "conflict-001", "--strategy", "vote", "--rationale", "leads")
	ok(t, "--db", file, "--as", "lead", "vote", "conflict-001", "--for", "A", "--rationale", "lab")

	server := serverField(t)
	up := copySummary(t, file, server)
	if !up.Created || up.Summary.Units != 4 || up.Summary.Conflicts != 2 || up.Summary.Ballots != 1 || up.Summary.Agents != 4 {
		t.Fatalf("copied to the server: %+v", up)
	}
	if strings.Contains(up.To, secret) {
		t.Fatalf("copy names the server with its password: %s", up.To)
	}

	laptop := filepath.Join(t.TempDir(), "laptop.db")
	down := copySummary(t, server, laptop)
	if down.Summary != up.Summary {
		t.Fatalf("the file, the server and the laptop differ:\n%+v\n%+v", up.Summary, down.Summary)
	}

	// The server's field works like the file: the escalated conflict is in
	// its queue.
	r := arbiter(t, "--db", server, "list", "--json")
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	var rows []model.ConflictSummary
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("the server's queue: %v %s", err, r.stdout)
	}

	decisions := filepath.Join(t.TempDir(), "decisions.jsonl")
	ok(t, "--db", laptop, "--as", "op", "--decisions-out", decisions, "merge", "conflict-002",
		"--strategy", "confidence_weighted", "--winner", "A", "--rationale", "the warm run is surer")
	r = arbiter(t, "--db", server, "apply", decisions)
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	d := showJSON(t, server, "conflict-002")
	if d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution.ResolvedBy != "op" {
		t.Fatalf("after apply the server's conflict-002 is %s", d.Conflict.Status)
	}
	if showJSON(t, laptop, "conflict-002").Conflict.Status != model.StatusEscalated {
		t.Fatal("the laptop's copy changed")
	}

	// A destination that holds a field is refused, and left as it was.
	r = arbiter(t, "copy", "--from", laptop, "--to", server)
	wantExit(t, r, 3)
	wantNoSecret(t, r)
	if !strings.Contains(r.stderr, "not empty") {
		t.Fatalf("copy onto a field: %s", r.stderr)
	}
	if showJSON(t, server, "conflict-002").Conflict.Status != model.StatusResolved {
		t.Fatal("a refused copy changed the destination")
	}
	// An empty field made by init is a fine destination.
	empty := filepath.Join(t.TempDir(), "empty.db")
	ok(t, "init", "--db", empty)
	if again := copySummary(t, server, empty); again.Created || again.Summary.Conflicts != 2 {
		t.Fatalf("copy into an empty field: %+v", again)
	}
}

// Whatever fails, no output names the password: a server field that is
// not there, a schema that holds something else, a protocol error, a
// server that cannot be reached.
func TestTheServersPasswordNeverShows(t *testing.T) {
	server := serverField(t)
	r := arbiter(t, "--db", server, "list")
	wantExit(t, r, 1)
	wantNoSecret(t, r)
	if !strings.Contains(r.stderr, "no such field") {
		t.Fatalf("a field that is not there: %s", r.stderr)
	}
	r = arbiter(t, "init", "--db", server)
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	r = arbiter(t, "init", "--db", server)
	wantExit(t, r, 1)
	wantNoSecret(t, r)
	for _, args := range [][]string{
		{"--db", server, "show", "conflict-404"},
		{"--db", server, "--as", "nobody", "merge", "conflict-404", "--strategy", "dismiss", "--rationale", "x"},
		{"--db", server, "register", "--id", "ana", "--role", "analyst", "--db-role", "no_such_role_anywhere"},
		{"--db", "host=/nonexistent/dir user=maya password=" + secret, "list"},
		{"--db", "host=/nonexistent/dir user=maya password='" + secret + "' bogus_key=1", "list"},
		{"--db", "postgres://maya:" + secret + "@127.0.0.1:1/team?connect_timeout=2", "list"},
		{"--db", "postgres://maya:" + secret + "@[bad", "list"},
	} {
		r := arbiter(t, args...)
		if r.code == 0 {
			t.Errorf("%v succeeded", args)
		}
		wantNoSecret(t, r)
	}
}
