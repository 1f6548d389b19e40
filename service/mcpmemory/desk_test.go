package mcpmemory

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/mcpmemory/mcpmemtest"
)

var ctx = context.Background()

func TestQueueIsExactlyTheirListersPairsOldestFirst(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{})
	rows, err := d.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge})
	if err != nil {
		t.Fatal(err)
	}
	lister := s.db.Lister()
	if len(lister) != 2 || len(rows) != len(lister) {
		t.Fatalf("lister returns %d pairs, the queue %d: %+v", len(lister), len(rows), rows)
	}
	var want []string
	for _, p := range lister {
		want = append(want, idOf(p.HashA, p.HashB))
	}
	slices.Sort(want)
	var got []string
	for _, r := range rows {
		got = append(got, r.ID)
		if r.Status != model.StatusEscalated || r.Type != model.ConflictFactual || r.DetectedBy != model.DetectedSemantic {
			t.Errorf("%s: %s %s %s", r.ID, r.Status, r.Type, r.DetectedBy)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("queue %v, lister %v", got, want)
	}
	if rows[0].ID != idOf(s.p99Old, s.p99New) || rows[1].ID != idOf(s.rateOld, s.rateNew) {
		t.Errorf("not oldest first: %v", got)
	}
	if r := rows[0]; r.Description != "“The checkout p99 latency is 90 ms in production.” vs “The checkout p99 latency is **40 ms** in the la…” · similarity 0.9712, divergence 0.3133" || r.UnitA != unitID(min(s.p99Old, s.p99New)) {
		t.Errorf("row: %+v", r)
	}
	counts, err := d.Counts(ctx)
	if err != nil || counts[model.StatusEscalated] != 2 || counts[model.StatusResolved] != 1 {
		t.Fatalf("counts %v %v", counts, err)
	}
	all, err := d.List(ctx, model.ListQuery{})
	if err != nil || len(all) != 3 {
		t.Fatalf("every status: %d %v", len(all), err)
	}
	res := all[1] // their resolve came second
	if res.ID != idOf(s.resWinner, s.resLoser) || res.Status != model.StatusResolved || res.Resolution == nil ||
		*res.Resolution.WinnerID != unitID(s.resWinner) || res.Resolution.ResolvedBy != Server {
		t.Fatalf("their resolved pair: %+v %+v", res.Conflict, res.Resolution)
	}
	for _, h := range []string{s.delKept, s.delGone, s.stale, s.dupA, s.dupB} {
		for _, r := range all {
			if strings.Contains(r.ID, h[:conflictIDLen]) {
				t.Errorf("%s should not be a conflict: %s", h[:8], r.ID)
			}
		}
	}
	if _, err := d.Detail(ctx, idOf(s.delKept, s.delGone)); !model.HasCode(err, model.CodeConflictNotFound) {
		t.Errorf("a pair with a deleted memory: %v", err)
	}
	if ud, err := d.Unit(ctx, unitID(s.delGone)); err != nil || ud.Unit.Status != model.UnitRetracted || len(ud.Conflicts) != 0 {
		t.Errorf("the deleted memory: %+v %v", ud.Unit.Status, err)
	}
	if ud, err := d.Unit(ctx, unitID(s.stale)); err != nil || ud.Unit.Status != model.UnitActive ||
		ud.Unit.Intent.Purpose != "tags: ops, conflict:unresolved" {
		t.Errorf("the memory with a stale tag: %+v %v", ud.Unit, err)
	}
	found, err := d.List(ctx, model.ListQuery{Search: "rate 250"})
	if err != nil || len(found) != 1 || found[0].ID != idOf(s.rateOld, s.rateNew) {
		t.Fatalf("search: %+v %v", found, err)
	}
}

func TestDetailShowsAMemoryWhereAUnitShowsItsOwn(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{})
	dt, err := d.Detail(ctx, idOf(s.p99Old, s.p99New))
	if err != nil {
		t.Fatal(err)
	}
	old := dt.A
	if old.Unit.ID != unitID(s.p99Old) {
		old = dt.B
	}
	u := old.Unit
	if u.Type != "observation" || u.Intent.Purpose != "tags: perf, checkout, conflict:unresolved" ||
		u.Status != model.UnitContested || u.Source.AgentID != Server || *u.Confidence.Score != 1.0 ||
		!slices.Equal(u.Confidence.Evidence, []string{`source: "lab run"`, "runs: 14"}) ||
		!strings.HasPrefix(u.Confidence.Reasoning, "version 1, updated 2025-06-02") ||
		u.Source.Timestamp != time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC) || u.Content != "The checkout p99 latency is **40 ms** in the lab." {
		t.Fatalf("unit: %+v", u)
	}
	if !slices.Equal(old.Supporters, []string{unitID(s.supporter)}) {
		t.Errorf("supporters %v", old.Supporters)
	}
	if len(u.Relations) != 1 || u.Relations[0].Type != model.RelContradicts || u.Relations[0].TargetID != unitID(s.p99New) {
		t.Errorf("relations %+v", u.Relations)
	}
	if dt.Policy.Refused[model.Synthesis] == "" || dt.Conflict.Escalation == nil || dt.Conflict.Version != versionOpen {
		t.Errorf("conflict %+v", dt.Conflict)
	}
	// The rules: the newer memory is the later write; the confidences
	// tie; the older one has a supporter.
	for _, p := range dt.Picks {
		switch p.Strategy {
		case model.LastWriteWins:
			if p.WinnerID != unitID(s.p99New) {
				t.Errorf("last write: %+v", p)
			}
		case model.ConfidenceWeighted:
			if !p.Tie {
				t.Errorf("confidence: %+v", p)
			}
		case model.EvidenceCount:
			if p.WinnerID != unitID(s.p99Old) {
				t.Errorf("evidence: %+v", p)
			}
		}
	}
	ud, err := d.Unit(ctx, unitID(s.supporter))
	if err != nil || len(ud.Unit.Relations) != 1 || ud.Unit.Relations[0].Type != model.RelSupports || ud.Unit.Status != model.UnitActive {
		t.Fatalf("supporter: %+v %v", ud, err)
	}
	ud, err = d.Unit(ctx, s.p99Old) // the whole hash works too
	if err != nil || len(ud.Incoming) != 2 || len(ud.Conflicts) != 1 {
		t.Fatalf("by hash: %+v %v", ud, err)
	}
}

func TestIDsAreTypedBackInAnyUniqueLength(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{})
	a, b := min(s.p99Old, s.p99New), max(s.p99Old, s.p99New)
	for _, id := range []string{a[:6] + "-" + b[:6], b[:6] + "-" + a[:6], a + "-" + b, strings.ToUpper(a[:9]) + "-" + b[:4]} {
		dt, err := d.Detail(ctx, id)
		if err != nil || dt.Conflict.ID != idOf(a, b) {
			t.Errorf("%s: %v %v", id, dt.Conflict.ID, err)
		}
	}
	for _, id := range []string{"abc", a[:6], a[:6] + "-", a[:3] + "-" + b[:6], "*-*"} {
		if _, err := d.Detail(ctx, id); !model.HasCode(err, model.CodeConflictNotFound) {
			t.Errorf("%q: %v", id, err)
		}
	}
	if _, err := d.Unit(ctx, "a*"); !model.HasCode(err, model.CodeUnitNotFound) {
		t.Errorf("a glob: %v", err)
	}
	if _, err := d.Unit(ctx, s.p99Old[:8]); err != nil {
		t.Errorf("8 characters: %v", err)
	}
}

func TestKeepWritesWhatTheirResolveWritesAndNothingElse(t *testing.T) {
	dir := t.TempDir()
	ours := newSceneAt(t, filepath.Join(dir, "ours"))
	theirs := newSceneAt(t, filepath.Join(dir, "theirs"))
	d := ours.open(t, Options{})
	before := ours.db.Dump()

	id := idOf(ours.p99Old, ours.p99New)
	resp, err := d.Merge(ctx, "maya", keepReq(id, unitID(ours.p99Old), model.Authority, "the lab run controls for warm caches"))
	if err != nil {
		t.Fatal(err)
	}
	theirs.db.Resolve(theirs.p99Old, theirs.p99New)

	if resp.Status != model.StatusResolved || !slices.Equal(resp.SideEffects.SupersededUnits, []string{unitID(ours.p99New)}) ||
		resp.Conflict.Resolution == nil || resp.Conflict.Resolution.Strategy != model.Authority ||
		resp.Conflict.Resolution.ResolvedBy != "maya" || *resp.Conflict.Resolution.WinnerID != unitID(ours.p99Old) {
		t.Fatalf("response: %+v %+v", resp, resp.Conflict.Resolution)
	}
	after, want := ours.db.Dump(), theirs.db.Dump()

	// Every table but the graph (and the FTS index, which their triggers
	// keep) is byte for byte what their resolve leaves.
	for table := range want {
		if table == "memory_graph" || strings.HasPrefix(table, "memory_content_fts_") {
			continue
		}
		if !slices.Equal(after[table], want[table]) {
			gone, added := mcpmemtest.Diff(want, after, table)
			t.Errorf("%s differs from their resolve's:\n theirs %q\n ours   %q", table, gone, added)
		}
	}
	// Against the file before: two memories changed, two edges changed.
	for table := range before {
		gone, added := mcpmemtest.Diff(before, after, table)
		switch {
		case table == "memories" || table == "memory_graph":
			if len(gone) != 2 || len(added) != 2 {
				t.Errorf("%s: %d rows changed into %d, want 2:\n%q\n%q", table, len(gone), len(added), gone, added)
			}
		case strings.HasPrefix(table, "memory_content_fts_"):
		case len(gone)+len(added) > 0:
			t.Errorf("%s changed: %q → %q", table, gone, added)
		}
	}
	// The edges: their metadata kept byte for byte, arbiter's record after.
	for _, e := range [][2]string{{ours.p99Old, ours.p99New}, {ours.p99New, ours.p99Old}} {
		meta, raw, ok := ours.db.EdgeMetadata(e[0], e[1])
		action := "keep_target"
		if e[0] == ours.p99Old {
			action = "keep_source"
		}
		if !ok || !strings.HasPrefix(raw, `{"similarity": 0.9712, "divergence": 0.3133, "detected_at": `) ||
			meta["resolved_by"] != "maya" || meta["resolution_action"] != action ||
			meta["rationale"] != "the lab run controls for warm caches" || meta["strategy"] != "authority" ||
			meta["resolved_at"] != mcpmemtest.Seconds(ours.db.Clock) {
			t.Errorf("edge %s→%s: %s", e[0][:6], e[1][:6], raw)
		}
	}
	loser := ours.db.Memory(ours.p99New)
	if loser.SupersededBy.String != ours.p99Old || loser.Tags.String != "perf" {
		t.Errorf("loser %+v", loser)
	}
	// Their FTS triggers fired, and the index is sound.
	if gone, _ := mcpmemtest.Diff(before, after, "memory_content_fts_data"); len(gone) == 0 {
		t.Errorf("the FTS index did not change: their update trigger did not fire")
	}
	ours.db.SQL(`INSERT INTO memory_content_fts(memory_content_fts) VALUES('integrity-check')`)

	// The pair left their lister's queue; show reads the decision back.
	if rows, _ := d.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses}); len(rows) != 1 || len(ours.db.Lister()) != 1 {
		t.Errorf("queue after: %+v", rows)
	}
	dt, err := d.Detail(ctx, id)
	if r := dt.Conflict.Resolution; err != nil || r == nil || r.ResolvedBy != "maya" || r.Rationale != "the lab run controls for warm caches" ||
		dt.Conflict.Status != model.StatusResolved || dt.Conflict.Version != versionDecided {
		t.Fatalf("detail after: %+v %v", dt.Conflict, err)
	}
	if _, err := d.Merge(ctx, "maya", keepReq(id, unitID(ours.p99Old), model.Authority, "again")); !model.HasCode(err, model.CodeInvalidTransition) {
		t.Errorf("deciding twice: %v", err)
	}
}

func TestDismissRemovesThePairsEdgesAndTagAndRecordsWhy(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{})
	before := s.db.Dump()
	id := idOf(s.rateOld, s.rateNew)
	resp, err := d.Merge(ctx, "maya", model.MergeRequest{ConflictID: id, Strategy: model.Dismiss, ExpectedVersion: versionOpen,
		Resolution: model.MergeResolution{Rationale: "two tiers: free and paid"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != model.StatusResolved || len(resp.SideEffects.SupersededUnits) != 0 || resp.Conflict.Resolution.Strategy != model.Dismiss {
		t.Fatalf("response %+v", resp)
	}
	after := s.db.Dump()
	for table := range before {
		gone, added := mcpmemtest.Diff(before, after, table)
		switch {
		case table == "memory_graph":
			if len(gone) != 2 || len(added) != 0 || !strings.Contains(gone[0], "'contradicts'") || !strings.Contains(gone[1], "'contradicts'") {
				t.Errorf("graph: %q → %q", gone, added)
			}
		case table == "memories":
			if len(gone) != 2 || len(added) != 2 {
				t.Errorf("memories: %q → %q", gone, added)
			}
		case strings.HasPrefix(table, "memory_content_fts_"):
		case len(gone)+len(added) > 0:
			t.Errorf("%s changed: %q → %q", table, gone, added)
		}
	}
	for _, pair := range [][2]string{{s.rateOld, s.rateNew}, {s.rateNew, s.rateOld}} {
		m := s.db.Memory(pair[0])
		if m.Tags.String != "api" || m.SupersededBy.Valid || m.Confidence.Float64 != 1.0 || m.LastAccessed.Valid {
			t.Errorf("memory %+v", m)
		}
		wantStart := `{"conflict_history": [{"resolved_at": ` + jsonTime(s.db.Clock) + `, "resolved_by": "maya", "resolution_action": "dismiss", "rationale": "two tiers: free and paid", "strategy": "dismiss", "conflict_with": "` + pair[1] + `"`
		if !strings.HasPrefix(m.Metadata.String, wantStart) {
			t.Errorf("metadata %s\nwant   %s", m.Metadata.String, wantStart)
		}
	}
	if len(s.db.Lister()) != 1 {
		t.Errorf("their lister still lists it")
	}
	if gone, _ := mcpmemtest.Diff(before, after, "memory_content_fts_data"); len(gone) == 0 {
		t.Errorf("the FTS index did not change: their update trigger did not fire")
	}
	s.db.SQL(`INSERT INTO memory_content_fts(memory_content_fts) VALUES('integrity-check')`)
	dt, err := d.Detail(ctx, id)
	if err != nil || dt.Conflict.Status != model.StatusResolved || dt.Conflict.Resolution.Strategy != model.Dismiss ||
		!strings.HasSuffix(dt.Conflict.Description, "” · similarity 0.955, divergence 0.2") || dt.A.Unit.Status != model.UnitActive {
		t.Fatalf("detail after: %+v %v", dt.Conflict, err)
	}
	if c, _ := d.Counts(ctx); c[model.StatusResolved] != 2 || c[model.StatusEscalated] != 1 {
		t.Errorf("counts %v", c)
	}
	// A memory's existing metadata keeps its bytes.
	m := s.db.Memory(s.p99Old)
	d.Merge(ctx, "maya", model.MergeRequest{ConflictID: idOf(s.p99Old, s.p99New), Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "lab and production differ"}})
	if got := s.db.Memory(s.p99Old).Metadata.String; !strings.HasPrefix(got, `{"source": "lab run", "runs": 14, "conflict_history": [{`) {
		t.Errorf("metadata before %s after %s", m.Metadata.String, got)
	}
}

func TestWhatTheirModelCannotHoldIsRefusedSayingWhy(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{})
	before := s.db.Dump()
	id := idOf(s.p99Old, s.p99New)
	text := "both: 40 ms in the lab, 90 ms in production"
	for _, req := range []model.MergeRequest{
		{ConflictID: id, Strategy: model.Synthesis, Resolution: model.MergeResolution{Synthesis: &text, Rationale: "both"}},
		{ConflictID: id, Strategy: model.Vote, Resolution: model.MergeResolution{Rationale: "ask the team"}},
		{ConflictID: id, Strategy: model.HumanEscalation, Resolution: model.MergeResolution{Rationale: "not mine"}},
	} {
		pe := wantCode(t, func() error { _, err := d.Merge(ctx, "maya", req); return err }(), model.CodeUnsupportedOperation)
		if !strings.Contains(pe.Message, "mcp-memory-service") {
			t.Errorf("%s: %s", req.Strategy, pe.Message)
		}
	}
	_, err := d.Vote(ctx, "maya", model.VoteRequest{ConflictID: id, Choice: "A", Rationale: "x"})
	wantCode(t, err, model.CodeUnsupportedOperation)
	_, err = d.Reopen(ctx, "maya", model.ReopenRequest{ConflictID: id, Rationale: "x"})
	wantCode(t, err, model.CodeUnsupportedOperation)

	// A rule must pick the memory named; last_write_wins picks the newer.
	_, err = d.Merge(ctx, "maya", keepReq(id, unitID(s.p99Old), model.LastWriteWins, "older is right"))
	wantCode(t, err, model.CodeMergeFailed)
	_, err = d.Merge(ctx, "maya", keepReq(id, unitID(s.p99Old), model.ConfidenceWeighted, "tie"))
	wantCode(t, err, model.CodeMergeFailed)
	_, err = d.Merge(ctx, "", keepReq(id, unitID(s.p99Old), model.Authority, "who?"))
	wantCode(t, err, model.CodeAgentNotRegistered)
	_, err = d.Merge(ctx, "maya", keepReq(id, "0000", model.Authority, "neither"))
	wantCode(t, err, model.CodeInvalidRequest)
	_, err = d.Merge(ctx, "maya", model.MergeRequest{ConflictID: id, Strategy: model.Dismiss, ExpectedVersion: 7,
		Resolution: model.MergeResolution{Rationale: "stale"}})
	wantCode(t, err, model.CodeInvalidTransition)
	if after := s.db.Dump(); !equalDumps(before, after) {
		t.Fatalf("a refused decision wrote something")
	}
	// evidence_count names the supported, older memory (here by its
	// whole hash): accepted.
	if _, err := d.Merge(ctx, "maya", model.MergeRequest{ConflictID: id, Strategy: model.EvidenceCount,
		Resolution: model.MergeResolution{WinnerID: model.Ptr(s.p99Old), Rationale: "supported"}}); err != nil {
		t.Fatal(err)
	}
}

func equalDumps(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !slices.Equal(a[k], b[k]) {
			return false
		}
	}
	return true
}

func TestAWriterHoldingTheFileMeansFieldBusyAndNothingHalfWritten(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{BusyTimeout: 300 * time.Millisecond})
	before := s.db.Dump()

	conn, err := s.db.Handle().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE metadata SET value = 'cosine' WHERE key = 'distance_metric'"); err != nil {
		t.Fatal(err)
	}
	id := idOf(s.p99Old, s.p99New)
	start := time.Now()
	_, err = d.Merge(ctx, "maya", keepReq(id, unitID(s.p99Old), model.Authority, "busy"))
	waited := time.Since(start)
	wantCode(t, err, model.CodeFieldBusy)
	if waited < 250*time.Millisecond || waited > 5*time.Second {
		t.Errorf("waited %v for a busy timeout of 300ms", waited)
	}
	// Reading goes on meanwhile (their WAL).
	if rows, err := d.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses}); err != nil || len(rows) != 2 {
		t.Errorf("reading beside a writer: %d %v", len(rows), err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if !equalDumps(before, s.db.Dump()) {
		t.Fatal("the refused decision left something written")
	}
	if _, err := d.Merge(ctx, "maya", keepReq(id, unitID(s.p99Old), model.Authority, "free now")); err != nil {
		t.Fatalf("once the writer let go: %v", err)
	}
}

func TestReadOnlyLeavesTheFileByteIdentical(t *testing.T) {
	for _, how := range []string{"--read-only", "a read-only file"} {
		t.Run(how, func(t *testing.T) {
			s := newScene(t)
			path := s.db.Path
			s.db.Close() // their server is not running: no -wal file
			if how == "a read-only file" {
				os.Chmod(path, 0o444)
			}
			sum := fileSum(t, path)
			files := dirFiles(t, filepath.Dir(path))
			d, err := Open(ctx, path, Options{ReadOnly: how == "--read-only", Owner: "maya"})
			if err != nil {
				t.Fatal(err)
			}
			if ro, why := d.ReadOnly(); !ro || why == "" {
				t.Errorf("read-only %v %q", ro, why)
			}
			id := idOf(s.p99Old, s.p99New)
			if rows, err := d.List(ctx, model.ListQuery{}); err != nil || len(rows) != 3 {
				t.Errorf("list: %d %v", len(rows), err)
			}
			if _, err := d.Detail(ctx, id); err != nil {
				t.Error(err)
			}
			if _, err := d.Changed(ctx); err != nil {
				t.Error(err)
			}
			_, err = d.Merge(ctx, "maya", keepReq(id, unitID(s.p99Old), model.Authority, "x"))
			wantCode(t, err, model.CodeReadOnly)
			d.Close()
			if fileSum(t, path) != sum || !slices.Equal(dirFiles(t, filepath.Dir(path)), files) {
				t.Fatalf("the file or its directory changed: %v → %v", files, dirFiles(t, filepath.Dir(path)))
			}
		})
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestAnOlderSchemaIsRefusedInOneLineNamingTheVersion(t *testing.T) {
	db := mcpmemtest.New(t, mcpmemtest.Legacy())
	db.Store(mcpmemtest.Memory{Content: "an old memory"})
	if !Recognize(db.Path) {
		t.Fatal("an older database is still theirs")
	}
	_, err := Open(ctx, db.Path, Options{})
	if err == nil {
		t.Fatal("opened a database without superseded_by")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "migration 011") || !strings.Contains(msg, NeededVersion) ||
		!strings.Contains(msg, "superseded_by") {
		t.Fatalf("refusal: %s", msg)
	}
}

func TestRecognizeTellsTheirFileFromOthers(t *testing.T) {
	s := newScene(t)
	if !Recognize(s.db.Path) {
		t.Error("their file")
	}
	other := filepath.Join(t.TempDir(), "x.db")
	os.WriteFile(other, []byte("not a database at all, but long enough to have a header of a hundred bytes......................"), 0o644)
	if Recognize(other) || Recognize(filepath.Join(t.TempDir(), "missing.db")) {
		t.Error("not theirs")
	}
	plain := mcpmemtest.New(t)
	plain.SQL("DROP TABLE memory_graph")
	plain.SQL("ALTER TABLE memories RENAME COLUMN content_hash TO hash")
	if Recognize(plain.Path) {
		t.Error("a memories table without content_hash")
	}
	plain.SQL("PRAGMA application_id = 1")
	plain.SQL("ALTER TABLE memories RENAME COLUMN hash TO content_hash")
	plain.Close()
	if Recognize(plain.Path) {
		t.Error("a file with an application_id is somebody's")
	}
}

func TestTheirVec0TableDoesNotStopArbiter(t *testing.T) {
	s := newScene(t, mcpmemtest.Vec0())
	if !Recognize(s.db.Path) {
		t.Fatal("not recognised")
	}
	d := s.open(t, Options{})
	id := idOf(s.p99Old, s.p99New)
	if _, err := d.Detail(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Merge(ctx, "maya", keepReq(id, unitID(s.p99New), model.LastWriteWins, "production wins")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Handle().Exec("SELECT count(*) FROM memory_embeddings"); err == nil || !strings.Contains(err.Error(), "vec0") {
		t.Fatalf("the fixture's memory_embeddings should need vec0: %v", err)
	}
}

func TestAConflictTheirServerDetectsShowsUpOnceChangedMoves(t *testing.T) {
	s := newScene(t)
	d := s.open(t, Options{})
	v1, err := d.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Changed(ctx); v != v1 {
		t.Fatal("Changed moved with nobody writing")
	}
	a := s.db.Store(mcpmemtest.Memory{Content: "The on-call rotation is weekly."})
	b := s.db.Store(mcpmemtest.Memory{Content: "The on-call rotation is biweekly."})
	s.db.Contradict(b, a, 0.97, 0.24)
	v2, err := d.Changed(ctx)
	if err != nil || v2 == v1 {
		t.Fatalf("Changed did not move: %d %d %v", v1, v2, err)
	}
	rows, _ := d.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses})
	if len(rows) != 3 || rows[2].ID != idOf(a, b) {
		t.Fatalf("the new conflict: %+v", rows)
	}
}

func TestTwoPairsSharingAShortIDGetLongerOnes(t *testing.T) {
	s := newScene(t)
	// Two more edges whose hashes begin like the p99 pair's.
	a, b := min(s.p99Old, s.p99New), max(s.p99Old, s.p99New)
	x, y := a[:6]+strings.Repeat("0", 58), b[:6]+strings.Repeat("1", 58)
	s.db.SQL(`INSERT INTO memories (content_hash, content, tags, metadata, created_at, updated_at) VALUES (?, 'x', '', '{}', 1, 1), (?, 'y', '', '{}', 1, 1)`, x, y)
	s.db.SQL(`INSERT INTO memory_graph (source_hash, target_hash, similarity, connection_types, metadata, created_at, relationship_type)
		VALUES (?, ?, 0.96, '["semantic"]', '{}', 2, 'contradicts')`, min(x, y), max(x, y))
	d := s.open(t, Options{})
	if _, err := d.Detail(ctx, a[:6]+"-"+b[:6]); !model.HasCode(err, model.CodeConflictNotFound) || !strings.Contains(err.Error(), conflictID(a, b, true)) {
		t.Fatalf("the short id: %v", err)
	}
	rows, _ := d.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses})
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
		if _, err := d.Detail(ctx, r.ID); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
	}
	if !slices.Contains(ids, conflictID(a, b, true)) || !slices.Contains(ids, conflictID(min(x, y), max(x, y), true)) {
		t.Fatalf("ids %v", ids)
	}
}

func TestTheCommonAncestorOfTwoVersions(t *testing.T) {
	s := newScene(t)
	base := s.db.Store(mcpmemtest.Memory{Content: "The release train leaves every Tuesday."})
	v2 := s.db.Store(mcpmemtest.Memory{Content: "The release train leaves every Tuesday and Thursday."})
	v3 := s.db.Store(mcpmemtest.Memory{Content: "The release train leaves every Wednesday."})
	s.db.SQL(`UPDATE memories SET parent_id = ?, version = 2 WHERE content_hash IN (?, ?)`, base, v2, v3)
	s.db.SQL(`UPDATE memories SET superseded_by = ? WHERE content_hash = ?`, v2, base)
	s.db.Contradict(v3, v2, 0.96, 0.3)
	d := s.open(t, Options{})
	dt, err := d.Detail(ctx, idOf(v2, v3))
	if err != nil {
		t.Fatal(err)
	}
	if dt.Ancestor == nil || dt.Ancestor.UnitID != unitID(base) || len(dt.Ancestor.PathA) != 2 {
		t.Fatalf("ancestor %+v", dt.Ancestor)
	}
	ud, err := d.Unit(ctx, unitID(base))
	if err != nil || ud.Unit.Status != model.UnitSuperseded || len(ud.Incoming) != 2 {
		t.Fatalf("base: %+v %v", ud, err)
	}
}
