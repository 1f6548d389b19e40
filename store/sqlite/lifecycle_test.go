package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"arbiter/model"
)

// created is a new field in a directory of its own, and its path.
func created(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.db")
	st, err := Create(context.Background(), path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	return st, path
}

func TestRemoveDeletesTheFileAndItsCompanions(t *testing.T) {
	ctx := context.Background()
	st, path := created(t)
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("a field just created and open: %v", err)
		}
	}
	if err := st.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(path + "*"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestRemoveRefusesAFieldItDidNotCreate(t *testing.T) {
	ctx := context.Background()
	st, path := created(t)
	st.Close()
	opened, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	if err := opened.Remove(ctx); err == nil {
		t.Error("Remove deleted a field that was opened, not created")
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the field: %v", err)
	}
}
