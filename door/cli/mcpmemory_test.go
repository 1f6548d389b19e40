package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/mcpmemory/mcpmemtest"
)

// memoryFile is an mcp-memory-service database with two pairs their
// lister returns — p99 (older) and rate — and one their resolve settled,
// closed as their server would be between requests.
func memoryFile(t *testing.T) (path string, p99Old, p99New, rateOld, rateNew string) {
	t.Helper()
	db := mcpmemtest.New(t)
	p99Old = db.Store(mcpmemtest.Memory{Content: "The checkout p99 latency is **40 ms** in the lab.",
		Tags: []string{"perf", "checkout"}, Type: "observation", Metadata: `{"source": "lab run"}`})
	p99New = db.Store(mcpmemtest.Memory{Content: "The checkout p99 latency is 90 ms in production.", Tags: []string{"perf"}, Type: "observation"})
	db.Contradict(p99New, p99Old, 0.9712, 0.3133)
	lost := db.Store(mcpmemtest.Memory{Content: "Deploys happen on Fridays."})
	won := db.Store(mcpmemtest.Memory{Content: "Deploys never happen on Fridays."})
	db.Contradict(won, lost, 0.96, 0.25)
	db.Resolve(won, lost)
	rateOld = db.Store(mcpmemtest.Memory{Content: "The API rate limit is 100 requests per second.", Tags: []string{"api"}})
	rateNew = db.Store(mcpmemtest.Memory{Content: "The API rate limit is 250 requests per second.", Tags: []string{"api"}})
	db.Contradict(rateNew, rateOld, 0.955, 0.2)
	db.Close()
	return db.Path, p99Old, p99New, rateOld, rateNew
}

// pairID is the conflict id arbiter gives the pair x, y.
func pairID(x, y string) string { return min(x, y)[:6] + "-" + max(x, y)[:6] }

func TestListShowAndMergeWorkOnAnMCPMemoryServiceDatabase(t *testing.T) {
	db, p99Old, p99New, rateOld, rateNew := memoryFile(t)
	p99, rate := pairID(p99Old, p99New), pairID(rateOld, rateNew)

	out := ok(t, "--db", db, "list")
	if !strings.Contains(out, "escalated 2") || !strings.Contains(out, "resolved 1") || strings.Index(out, p99) > strings.Index(out, rate) ||
		!strings.Contains(out, "“The checkout p99 latency is 90 ms in production.” vs “The") {
		t.Fatalf("list:\n%s", out)
	}
	var rows []model.ConflictSummary
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "list", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	var lister []string
	for _, p := range mcpmemtest.Open(t, db).Lister() {
		lister = append(lister, pairID(p.HashA, p.HashB))
	}
	if slices.Sort(lister); !slices.Equal(slices.Sorted(slices.Values(ids)), lister) {
		t.Fatalf("list --json %v, their lister %v", ids, lister)
	}

	out = ok(t, "--db", db, "show", p99)
	for _, want := range []string{"escalated", "version 1", "tags: perf, checkout, conflict:unresolved", `source: "lab run"`,
		"The checkout p99 latency is **40 ms** in the lab.", "by          mcp-memory-service (memory server)", "last_write_wins"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if out := ok(t, "--db", db, "show", p99Old[:12]); !strings.Contains(out, "conflict    "+p99) {
		t.Errorf("show of a memory:\n%s", out)
	}

	r := arbiter(t, "--db", db, "--as", "maya", "merge", p99, "--strategy", "synthesis", "--synthesis", "both", "--rationale", "both")
	wantExit(t, r, exitProtocol)
	if !strings.Contains(r.stderr, "UNSUPPORTED_OPERATION") || !strings.Contains(r.stderr, "embedding") {
		t.Errorf("synthesis: %s", r.stderr)
	}
	side := "A"
	if p99Old > p99New {
		side = "B"
	}
	out = ok(t, "--db", db, "--as", "maya", "merge", p99, "--strategy", "authority", "--winner", side,
		"--rationale", "the lab run controls for warm caches", "--expect-version", "1")
	if !strings.Contains(out, "resolved "+p99) || !strings.Contains(out, "superseded  "+p99New[:12]) {
		t.Errorf("merge:\n%s", out)
	}
	check := mcpmemtest.Open(t, db)
	if m := check.Memory(p99New); m.SupersededBy.String != p99Old || m.Tags.String != "perf" {
		t.Errorf("the loser: %+v", m)
	}
	if m := check.Memory(p99Old); m.Confidence.Float64 != 1 || !m.LastAccessed.Valid || m.Tags.String != "perf,checkout" {
		t.Errorf("the winner: %+v", m)
	}
	if meta, _, _ := check.EdgeMetadata(p99Old, p99New); meta["resolved_by"] != "maya" || meta["resolution_action"] != "keep_source" {
		t.Errorf("edge: %v", meta)
	}
	ok(t, "--db", db, "--as", "maya", "merge", rate, "--strategy", "dismiss", "--rationale", "free and paid tiers")
	if _, _, there := check.EdgeMetadata(rateOld, rateNew); there || len(check.Lister()) != 0 {
		t.Errorf("the dismissed pair's edges stand")
	}
	if out := ok(t, "--db", db, "show", rate); !strings.Contains(out, "resolution  dismiss by maya") {
		t.Errorf("show after dismiss:\n%s", out)
	}
}

func TestEveryOtherCommandRefusesAnMCPMemoryServiceDatabaseInOneLine(t *testing.T) {
	db, p99Old, p99New, _, _ := memoryFile(t)
	before := dirState(t, filepath.Dir(db))
	id := pairID(p99Old, p99New)
	for _, args := range [][]string{
		{"agents"}, {"inbox"}, {"vote", id, "--for", "A", "--rationale", "x"}, {"reopen", id, "--rationale", "x"},
		{"register", "--id", "bob", "--role", "analyst"}, {"export", "--decisions"}, {"mcp"},
	} {
		r := call(t, nil, "", append([]string{"--db", db, "--as", "maya"}, args...)...)
		want := "arbiter: UNSUPPORTED_OPERATION: " + db + " is an mcp-memory-service database: only the screen, list, show and merge work on it"
		if r.code != exitProtocol || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	r := arbiter(t, "--db", db, "--as", "maya", "--decisions-out", filepath.Join(t.TempDir(), "d.jsonl"), "merge", id,
		"--strategy", "dismiss", "--rationale", "x")
	wantExit(t, r, exitProtocol)
	r = arbiter(t, "--db", db, "--read-only", "--as", "maya", "merge", id, "--strategy", "dismiss", "--rationale", "x")
	if wantExit(t, r, exitProtocol); !strings.Contains(r.stderr, "READ_ONLY") {
		t.Errorf("read-only merge: %s", r.stderr)
	}
	ok(t, "--db", db, "--read-only", "list")
	ok(t, "--db", db, "--read-only", "show", id)
	wantSameDir(t, "refused commands and read-only reads", before, dirState(t, filepath.Dir(db)))
}

func TestAnOlderMCPMemoryServiceDatabaseIsRefusedNamingTheVersion(t *testing.T) {
	old := mcpmemtest.New(t, mcpmemtest.Legacy())
	old.Store(mcpmemtest.Memory{Content: "an old memory"})
	old.Close()
	r := arbiter(t, "--db", old.Path, "list")
	wantExit(t, r, exitFailure)
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "migration 011") || !strings.Contains(r.stderr, "v10.30.0") {
		t.Errorf("refusal: %q", r.stderr)
	}
}

func TestWithoutATerminalTheScreenOnAnMCPMemoryServiceDatabaseSaysWhatToType(t *testing.T) {
	db, p99Old, p99New, _, _ := memoryFile(t)
	out := ok(t, "--db", db, "--as", "maya")
	id := pairID(p99Old, p99New)
	if !strings.Contains(out, "Decide "+id+" from the command line:") || !strings.Contains(out, "merge "+id+" --strategy STRATEGY") {
		t.Errorf("no terminal:\n%s", out)
	}
}

// TestTheScreenDecidesOnAnMCPMemoryServiceDatabase keeps one memory with
// the keyboard alone, in tmux, and sees a conflict their server records
// meanwhile appear.
func TestTheScreenDecidesOnAnMCPMemoryServiceDatabase(t *testing.T) {
	db, p99Old, p99New, rateOld, rateNew := memoryFile(t)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	s := newTmux(t, 200, 45, env, "--db", db, "--as", "maya")
	p99 := pairID(p99Old, p99New)
	scr := s.waitFor("▸ "+p99, "escalated 2", pairID(rateOld, rateNew))
	// The queue says what is disputed, marked as found by their detector,
	// and has no AGENTS column, nor has the preview an authors line: their
	// server wrote every memory.
	if !strings.Contains(scr, "◇ “The checkout p99 latency") ||
		!strings.Contains(scr, "“The checkout p99 latency is 90 ms in production.” vs “The checkout p99") ||
		strings.Contains(scr, "AGENTS") || strings.Contains(scr, "mcp-memory-service vs") {
		t.Errorf("the queue should show the start of each memory's text and no AGENTS column:\n%s", scr)
	}
	s.send("Enter")
	s.waitFor("A "+min(p99Old, p99New)[:12], "B "+max(p99Old, p99New)[:12], "tags: perf", "similarity 0.9712")
	s.send("d")
	// The strategies their model cannot carry out are there, disabled,
	// saying why; last_write_wins is chosen, the rule's pick preselected.
	s.waitFor("Decide "+p99, "synthesis — synthesis is not offered here: a new memory needs an embedding",
		"vote — vote is not offered here", "▸ last_write_wins", "the rule picks")
	s.send("Tab", "Tab")
	s.typeText("Production traces beat a lab run.")
	s.send("C-s")
	s.waitFor("Write this decision?", p99Old[:12]+" becomes superseded")
	s.send("y")
	s.waitFor("Written.", "is now resolved")
	s.send("Escape")
	s.waitFor("escalated 1")

	// Their server records a new contradiction while the screen is open.
	live := mcpmemtest.Open(t, db)
	a := live.Store(mcpmemtest.Memory{Content: "The on-call rotation is weekly."})
	b := live.Store(mcpmemtest.Memory{Content: "The on-call rotation is biweekly."})
	live.Contradict(b, a, 0.97, 0.24)
	s.waitFor("escalated 2", pairID(a, b))
	s.send("q")

	if m := live.Memory(p99Old); m.SupersededBy.String != p99New {
		t.Errorf("the older memory should be superseded by the newer: %+v", m)
	}
	if meta, _, _ := live.EdgeMetadata(p99New, p99Old); meta["strategy"] != "last_write_wins" ||
		meta["rationale"] != "Production traces beat a lab run." || meta["resolved_by"] != "maya" {
		t.Errorf("edge: %v", meta)
	}
}
