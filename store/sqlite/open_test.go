package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/sqlite"
)

// fileState is a file's bytes (as a hash) and the names in its directory.
type fileState struct {
	sum   [32]byte
	names []string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fileState{sha256.Sum256(b), names}
}

func wantUnchanged(t *testing.T, path string, before fileState) {
	t.Helper()
	after := stateOf(t, path)
	if after.sum != before.sum {
		t.Fatalf("%s changed", path)
	}
	if !slices.Equal(after.names, before.names) {
		t.Fatalf("directory now holds %q, before %q", after.names, before.names)
	}
}

// closedField builds a field with a detected conflict and a vote, closes
// it (so its -wal file is checkpointed away) and returns its path and the
// two conflicts.
func closedField(t *testing.T) (path string, detected, voting rt.Pair) {
	t.Helper()
	f := rt.New(t, rt.Policy())
	detected = f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.8}, rt.Side{Score: 0.2})
	voting = f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := f.Svc.Merge(context.Background(), rt.Senior1, model.MergeRequest{ConflictID: voting.Conflict,
		Strategy: model.Vote, Resolution: model.MergeResolution{Rationale: "ask the leads"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Store.Close(); err != nil {
		t.Fatal(err)
	}
	if names := stateOf(t, f.Path).names; !slices.Equal(names, []string{"field.db"}) {
		t.Fatalf("a closed field's directory holds %q, want only field.db", names)
	}
	return f.Path, detected, voting
}

// wantEveryWriteReadOnly tries each write the rules offer and expects
// READ_ONLY from each, in the operation's own name.
func wantEveryWriteReadOnly(t *testing.T, st *sqlite.Store, detected, voting rt.Pair) {
	t.Helper()
	ctx := context.Background()
	svc := review.New(st)
	score := 0.5
	_, err := svc.Register(ctx, model.Agent{ID: "newcomer", Role: "analyst", Authority: 4})
	rt.WantError(t, err, model.CodeReadOnly, "REGISTER", false)
	_, err = svc.Record(ctx, rt.Standard, model.RecordRequest{Type: model.TypeFinding, Content: "x",
		Intent: model.Intent{Purpose: "y"}, Confidence: model.Confidence{Score: &score, Reasoning: "z"}})
	rt.WantError(t, err, model.CodeReadOnly, "RECORD", false)
	_, err = svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: detected.Conflict, Strategy: model.ConfidenceWeighted,
		Resolution: model.MergeResolution{WinnerID: &detected.A, Rationale: "surer"}})
	rt.WantError(t, err, model.CodeReadOnly, "MERGE", false)
	_, err = svc.Vote(ctx, rt.Lead1, model.VoteRequest{ConflictID: voting.Conflict, Choice: "A", Rationale: "A"})
	rt.WantError(t, err, model.CodeReadOnly, "VOTE", false)

	// Reading works.
	if d, err := svc.Detail(ctx, detected.Conflict); err != nil || d.Conflict.Status != model.StatusDetected {
		t.Fatalf("detail on a read-only field: %+v, %v", d.Conflict, err)
	}
	if list, err := svc.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses}); err != nil || len(list) != 1 {
		t.Fatalf("review queue on a read-only field: %d rows, %v", len(list), err)
	}
}

func TestReadOnlyRefusesEveryWrite(t *testing.T) {
	path, detected, voting := closedField(t)
	before := stateOf(t, path)

	st, err := sqlite.Open(context.Background(), path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !st.ReadOnly() || st.ReadOnlyReason() != "" {
		t.Fatalf("ReadOnly %v, reason %q; want read-only as asked, no reason", st.ReadOnly(), st.ReadOnlyReason())
	}
	if ro, why := review.New(st).ReadOnly(); !ro || why == "" {
		t.Fatalf("the rules say read-only %v (%q)", ro, why)
	}
	wantEveryWriteReadOnly(t, st, detected, voting)
	wantUnchanged(t, path, before) // nothing written, no -wal or -shm made, even while open
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	wantUnchanged(t, path, before)
}

func TestReadOnlyDirectoryOpensReadOnly(t *testing.T) {
	path, detected, voting := closedField(t)
	dir := filepath.Dir(path)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before := stateOf(t, path)

	st, err := sqlite.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.ReadOnly() || !strings.Contains(st.ReadOnlyReason(), "directory") {
		t.Fatalf("ReadOnly %v, reason %q; want read-only because of the directory", st.ReadOnly(), st.ReadOnlyReason())
	}
	if _, why := review.New(st).ReadOnly(); why != st.ReadOnlyReason() {
		t.Fatalf("the rules give the reason %q, want %q", why, st.ReadOnlyReason())
	}
	wantEveryWriteReadOnly(t, st, detected, voting)
	wantUnchanged(t, path, before)
}

func TestReadOnlyFileOpensReadOnly(t *testing.T) {
	path, detected, voting := closedField(t)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, path)

	st, err := sqlite.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.ReadOnly() || !strings.Contains(st.ReadOnlyReason(), "file") {
		t.Fatalf("ReadOnly %v, reason %q; want read-only because of the file", st.ReadOnly(), st.ReadOnlyReason())
	}
	wantEveryWriteReadOnly(t, st, detected, voting)
	wantUnchanged(t, path, before)
}

func TestOpenMissingPathCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, ro := range []bool{false, true} {
		_, err := sqlite.Open(context.Background(), filepath.Join(dir, "nope.db"), store.Options{ReadOnly: ro})
		oe := wantOpenError(t, err, "no such field")
		if !errors.Is(oe, os.ErrNotExist) {
			t.Fatalf("%v should wrap os.ErrNotExist", oe)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("opening a missing field left %d files", len(entries))
	}
}

func wantOpenError(t *testing.T, err error, reason string) *store.OpenError {
	t.Helper()
	var oe *store.OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("got %v, want an OpenError", err)
	}
	if !strings.Contains(oe.Reason, reason) || !strings.Contains(oe.Error(), oe.Name) {
		t.Fatalf("reason %q (%v), want it to say %q and name the path", oe.Reason, oe, reason)
	}
	return oe
}

func TestOpenRefusesWhatIsNotAField(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, path string)
		reason string
	}{
		{"empty file", func(t *testing.T, path string) { writeFile(t, path, "") }, "empty file"},
		{"short text file", func(t *testing.T, path string) { writeFile(t, path, "hello\n") }, "not a SQLite database"},
		{"long text file", func(t *testing.T, path string) {
			writeFile(t, path, strings.Repeat("# notes about the field\n", 40))
		}, "not a SQLite database"},
		{"plain SQLite database", func(t *testing.T, path string) { plainSQLite(t, path, "delete").Close() },
			"SQLite database but not an arbiter field"},
		{"plain SQLite database in WAL mode, in use", func(t *testing.T, path string) {
			db := plainSQLite(t, path, "wal") // stays open: its -wal file is live
			t.Cleanup(func() { db.Close() })
		}, "SQLite database but not an arbiter field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "field.db")
			tc.make(t, path)
			for _, ro := range []bool{false, true} {
				before := stateOf(t, path)
				_, err := sqlite.Open(context.Background(), path, store.Options{ReadOnly: ro})
				wantOpenError(t, err, tc.reason)
				wantUnchanged(t, path, before)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		_, err := sqlite.Open(context.Background(), t.TempDir(), store.Options{})
		wantOpenError(t, err, "directory")
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// plainSQLite makes a SQLite database that is not a field, with a table
// of its own and journal mode jm.
func plainSQLite(t *testing.T, path, jm string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode("+jm+")")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('bread')`); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOpenRefusesNewerFormat(t *testing.T) {
	path, _, _ := closedField(t)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := stateOf(t, path)
	for _, ro := range []bool{false, true} {
		_, err := sqlite.Open(context.Background(), path, store.Options{ReadOnly: ro})
		oe := wantOpenError(t, err, "newer arbiter")
		if !strings.Contains(oe.Reason, "99") {
			t.Fatalf("reason %q should name the file's format", oe.Reason)
		}
		wantUnchanged(t, path, before)
	}
}

func TestOpenFieldInUseByAnotherWriter(t *testing.T) {
	// A field just created and still open keeps its header in the -wal
	// file until a checkpoint; other programs must still recognise it.
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if _, err := os.Stat(f.Path + "-wal"); err != nil {
		t.Fatalf("expected a live -wal file: %v", err)
	}
	for _, ro := range []bool{false, true} {
		st, err := sqlite.Open(context.Background(), f.Path, store.Options{ReadOnly: ro})
		if err != nil {
			t.Fatalf("open (read-only %v) while another writer has it open: %v", ro, err)
		}
		d, err := review.New(st).Detail(context.Background(), p.Conflict)
		if err != nil || d.A.Unit.ID != p.A {
			t.Fatalf("read (read-only %v) through the second store: %+v, %v", ro, d.Conflict, err)
		}
		st.Close()
	}
}

// TestOpenNamesALogDeletedUnderALiveWriter deletes the -wal file of a
// field another store is writing — one just made, whose first page is
// only in its log, and one checkpointed before the writer opened it:
// opening the field again says the log was deleted under a writer, not
// that a table is damaged or that the file is not a field.
func TestOpenNamesALogDeletedUnderALiveWriter(t *testing.T) {
	if rt.OnPostgres() {
		t.Skip("a SQLite file's log")
	}
	fresh := rt.New(t, rt.Policy())
	fresh.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	closed, _, _ := closedField(t)
	writer, err := sqlite.Open(context.Background(), closed, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if _, err := review.New(writer).Register(context.Background(), model.Agent{ID: "late", Role: "analyst", Authority: 4}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fresh.Path, closed} {
		wantLogDeletedNamed(t, path)
	}
}

func wantLogDeletedNamed(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path + "-wal"); err != nil {
		t.Fatalf("the live writer has no -wal file to delete: %v", err)
	}
	for _, ro := range []bool{false, true} {
		st, err := sqlite.Open(context.Background(), path, store.Options{ReadOnly: ro})
		if err == nil {
			st.Close()
			t.Fatalf("open (read-only %v) with the live writer's log deleted: no error", ro)
		}
		wantOpenError(t, err, "its log field.db-wal was deleted while a program was writing the field; close that program")
		if strings.Contains(err.Error(), "clock table") {
			t.Fatalf("open (read-only %v): %v; the clock table is fine", ro, err)
		}
	}
}
