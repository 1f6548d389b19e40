package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/sqlite"
)

// A field file deleted, or replaced by another file, under an open store:
// every write is refused with FIELD_GONE in the operation's name, Check
// says so, and nothing is made at the path.
func TestWritesToAFieldFileNoLongerAtItsPathAreRefused(t *testing.T) {
	if rt.OnPostgres() {
		t.Skip("a SQLite file")
	}
	ctx := context.Background()
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			path, detected, _ := closedField(t)
			st, err := sqlite.Open(ctx, path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			svc := review.New(st)
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
			_, err = svc.Register(ctx, model.Agent{ID: "late", Role: "analyst", Authority: 4})
			pe := rt.WantError(t, err, model.CodeFieldGone, "REGISTER", false)
			if want := "the field file " + path + " is no longer at its path: it was deleted or replaced; nothing was written"; pe.Message != want {
				t.Errorf("the refusal says %q, want %q", pe.Message, want)
			}
			_, err = svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: detected.Conflict, Strategy: model.ConfidenceWeighted,
				Resolution: model.MergeResolution{WinnerID: &detected.A, Rationale: "surer"}})
			rt.WantError(t, err, model.CodeFieldGone, "MERGE", false)
			if err := st.Check(ctx); !model.HasCode(err, model.CodeFieldGone) {
				t.Errorf("Check after the file was %s: %v, want FIELD_GONE", how, err)
			}
			if _, err := os.Stat(path); how == "deleted" && !os.IsNotExist(err) {
				t.Errorf("something was made at the deleted field's path: %v", err)
			}
		})
	}
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
// at its path costs a write: a small write transaction (a tick of the
// clock) with the check, and the check alone (check-us).
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
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := sqlite.Present(st); err != nil {
				b.Fatal(err)
			}
		}
	})
}
