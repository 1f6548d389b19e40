package fsperm_test

import (
	"os"
	"path/filepath"
	"testing"

	"arbiter/internal/fsperm"
)

func TestNotWritableNamesTheFileOrItsDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "field.db")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := fsperm.NotWritable(path); why != "" {
		t.Errorf("a writable file in a writable directory: %q, want nothing", why)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if why := fsperm.NotWritable(path); why != "the file is not writable" {
		t.Errorf("a read-only file: %q", why)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if why := fsperm.NotWritable(path); why != "its directory is not writable" {
		t.Errorf("a file in a read-only directory: %q", why)
	}
}
