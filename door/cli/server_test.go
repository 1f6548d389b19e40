package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"arbiter/model"
)

// Every command of the README's tour, and import, export and gen, on a
// field on PostgreSQL: the same answers as on a file.
func TestTheTourWorksOnAServer(t *testing.T) {
	db := serverField(t)
	run := func(args ...string) string {
		t.Helper()
		r := arbiter(t, append([]string{"--db", db}, args...)...)
		wantNoSecret(t, r)
		if r.code != 0 {
			t.Fatalf("arbiter %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	run("init", "--quorum", "2", "--recusal=false", "--authority", "factual=lead")
	run("register", "--id", "ana", "--role", "analyst", "--authority", "6")
	run("register", "--id", "bob", "--role", "analyst")
	run("register", "--id", "lead", "--role", "lead", "--authority", "6")
	if out := run("register", "--id", "op", "--role", "operator", "--kind", "human", "--authority", "10", "--db-role", "pg_monitor"); !strings.Contains(out, "database role pg_monitor") {
		t.Fatalf("register --db-role: %s", out)
	}
	if out := run("agents"); !strings.Contains(out, "DB ROLE") || !strings.Contains(out, "pg_monitor") {
		t.Fatalf("agents shows no database role:\n%s", out)
	}
	rec := func(as, payload string) string {
		t.Helper()
		r := call(t, nil, payload, "--db", db, "--as", as, "record")
		wantExit(t, r, 0)
		return r.stdout
	}
	rec("ana", recordPayload("p99 is 40 ms", 0.9, ""))
	if out := rec("bob", recordPayload("p99 is 90 ms", 0.6, "mem-001")); !strings.Contains(out, "conflict-001") {
		t.Fatalf("record opened no conflict: %s", out)
	}
	rec("ana", recordPayload("the cache is warm", 0.7, ""))
	rec("bob", recordPayload("the cache is cold", 0.5, "mem-003"))

	run("--as", "bob", "merge", "conflict-002", "--strategy", "human_escalation", "--rationale", "people")
	if out := run("list"); !strings.Contains(out, "conflict-002") || strings.Contains(out, "conflict-001") {
		t.Fatalf("the queue:\n%s", out)
	}
	if out := run("list", "--status", "all", "--search", "cach"); !strings.Contains(out, "conflict-002") || strings.Contains(out, "conflict-001") {
		t.Fatalf("a search of the units' words:\n%s", out)
	}
	run("--as", "op", "merge", "conflict-002", "--strategy", "confidence_weighted", "--winner", "A",
		"--rationale", "the warm run is surer", "--expect-version", "2")
	run("--as", "op", "reopen", "conflict-002", "--rationale", "decided on a misread log")
	run("--as", "lead", "merge", "conflict-001", "--strategy", "vote", "--rationale", "the leads")
	run("--as", "ana", "vote", "conflict-001", "--for", "B", "--rationale", "production")
	run("--as", "lead", "vote", "conflict-001", "--for", "B", "--rationale", "agreed")
	d := showJSON(t, db, "conflict-001")
	if d.Conflict.Status != model.StatusResolved || d.A.Unit.Status != model.UnitSuperseded {
		t.Fatalf("the vote closed conflict-001 as %s, unit A %s", d.Conflict.Status, d.A.Unit.Status)
	}
	if out := run("show", "mem-002"); !strings.Contains(out, "conflict-001") {
		t.Fatalf("show of a unit:\n%s", out)
	}
	var ns []model.Notification
	if err := json.Unmarshal([]byte(run("--as", "ana", "inbox", "--json")), &ns); err != nil || len(ns) == 0 {
		t.Fatalf("ana's inbox: %v %d", err, len(ns))
	}
	if out := run("export", "--decisions"); strings.Count(out, "\n") < 4 {
		t.Fatalf("export --decisions:\n%s", out)
	}
	if out := run(); !strings.Contains(out, "conflict-002") {
		t.Fatalf("without a terminal the bare command prints the queue:\n%s", out)
	}

	// An SDK log in, the decisions back out.
	sdk := serverField(t)
	r := arbiter(t, "init", "--db", sdk)
	wantExit(t, r, 0)
	log := sdkLog(t)
	r = arbiter(t, "import", "--from", "akashik-jsonl", log, "--db", sdk)
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	r = arbiter(t, "export", "--to", "akashik-jsonl", log, "--db", sdk)
	wantExit(t, r, 0)

	// A generated field.
	gen := serverField(t)
	r = arbiter(t, "gen", "--db", gen, "--units", "3000", "--conflicts", "1000", "--open", "200")
	wantExit(t, r, 0)
	wantNoSecret(t, r)
	var rows []model.ConflictSummary
	if err := json.Unmarshal([]byte(ok(t, "--db", gen, "list", "--json")), &rows); err != nil || len(rows) != 200 {
		t.Fatalf("the generated field's queue: %v, %d rows", err, len(rows))
	}
}
