package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/sqlite"
)

// A field file deleted, or replaced by another file, under an open store:
// every write is refused with FIELD_GONE in the operation's name, every
// read and the watch too, Check says so, and nothing is made at the path.
func TestAFieldFileNoLongerAtItsPathIsNeitherWrittenNorRead(t *testing.T) {
	if rt.OnPostgres() {
		t.Skip("a SQLite file")
	}
	ctx := context.Background()
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			path, detected, st, svc := openClosedField(t)
			if err := st.Check(ctx); err != nil {
				t.Fatalf("Check of a field in place: %v", err)
			}
			// A write before: the store's connections are open on the file.
			if _, err := svc.Register(ctx, model.Agent{ID: "early", Role: "analyst", Authority: 4}); err != nil {
				t.Fatal(err)
			}
			copyOf := filepath.Join(t.TempDir(), "copy.db")
			if how == "replaced" {
				mustCopy(t, path, copyOf)
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
			if how == "replaced" {
				if err := os.Rename(copyOf, path); err != nil {
					t.Fatal(err)
				}
			}
			_, err := svc.Register(ctx, model.Agent{ID: "late", Role: "analyst", Authority: 4})
			pe := rt.WantError(t, err, model.CodeFieldGone, "REGISTER", false)
			if want := "the field file " + path + " " + goneWords; pe.Message != want {
				t.Errorf("the refusal says %q, want %q", pe.Message, want)
			}
			_, err = svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: detected.Conflict, Strategy: model.ConfidenceWeighted,
				Resolution: model.MergeResolution{WinnerID: &detected.A, Rationale: "surer"}})
			rt.WantError(t, err, model.CodeFieldGone, "MERGE", false)
			if err := st.Check(ctx); !model.HasCode(err, model.CodeFieldGone) {
				t.Errorf("Check after the file was %s: %v, want FIELD_GONE", how, err)
			}
			wantReadsGone(t, st, svc, detected.Conflict)
			if _, err := os.Stat(path); how == "deleted" && !os.IsNotExist(err) {
				t.Errorf("something was made at the deleted field's path: %v", err)
			}
		})
	}
}

// goneWords end the refusal of a field whose file went.
const goneWords = "is no longer at its path: it was deleted or replaced; nothing was written"

// wantReadsGone checks that a read and the watch of a field whose file
// is gone are refused. The read is served on a connection the pool
// opened before the file went, which would read the old file; a read
// that opens one after is TestAFieldFileBackAtItsPathIsReadAgain's.
func wantReadsGone(t *testing.T, st *sqlite.Store, svc *review.Service, conflict string) {
	t.Helper()
	ctx := context.Background()
	_, err := svc.Detail(ctx, conflict)
	if pe := rt.WantError(t, err, model.CodeFieldGone, "READ", false); !strings.HasSuffix(pe.Message, goneWords) {
		t.Errorf("a read says %q", pe.Message)
	}
	_, err = st.Changed(ctx)
	if pe := rt.WantError(t, err, model.CodeFieldGone, "WATCH", false); !strings.HasSuffix(pe.Message, goneWords) {
		t.Errorf("the watch says %q", pe.Message)
	}
}

// A field file moved away and back is the file the store opened: it
// is read and written again. The store has read nothing yet, so the read
// while it is away opens a connection, which cannot open the file.
func TestAFieldFileBackAtItsPathIsReadAgain(t *testing.T) {
	if rt.OnPostgres() {
		t.Skip("a SQLite file")
	}
	ctx := context.Background()
	path, detected, st, svc := openClosedField(t)
	away := path + ".away"
	if err := os.Rename(path, away); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Detail(ctx, detected.Conflict)
	rt.WantError(t, err, model.CodeFieldGone, "READ", false)
	if err := os.Rename(away, path); err != nil {
		t.Fatal(err)
	}
	if d, err := svc.Detail(ctx, detected.Conflict); err != nil || d.Conflict.ID != detected.Conflict {
		t.Fatalf("a read once the file is back: %v", err)
	}
	if _, err := st.Changed(ctx); err != nil {
		t.Fatalf("the watch once the file is back: %v", err)
	}
	if _, err := svc.Register(ctx, model.Agent{ID: "back", Role: "analyst", Authority: 4}); err != nil {
		t.Fatalf("a write once the file is back: %v", err)
	}
}

// openClosedField opens closedField's field, closed at the test's end.
func openClosedField(t *testing.T) (string, rt.Pair, *sqlite.Store, *review.Service) {
	t.Helper()
	path, detected, _ := closedField(t)
	st, err := sqlite.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return path, detected, st, review.New(st)
}

func mustCopy(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkWriteFieldCheck is what the check that the field file is still
// at its path costs a write and a read: a small write transaction (a tick
// of the clock) and the smallest read (the epoch), each with the check,
// and the check alone.
func BenchmarkWriteFieldCheck(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "field.db")
	st, err := sqlite.Create(ctx, path, rt.Policy())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			if err := st.Write(ctx, func(tx store.Tx) error { _, err := tx.EpochTick(); return err }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if err := st.Read(ctx, func(tx store.Tx) error { _, err := tx.Epoch(); return err }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := sqlite.Present(st); err != nil {
				b.Fatal(err)
			}
		}
	})
}
