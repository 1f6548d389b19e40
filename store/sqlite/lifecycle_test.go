package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"arbiter/model"
)

func TestRemoveDeletesTheFileAndItsCompanions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "field.db")
	st, err := Create(ctx, path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
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
	path := filepath.Join(t.TempDir(), "field.db")
	st, err := Create(ctx, path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
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
