// Package fsperm says whether a file that a database lives in can be
// written: the file itself, and its directory, where SQLite keeps its
// -wal and -shm files. The mode bits count too, so a file made read-only
// is honoured even for root; beyond them each system asks its own way
// (access(2) on Unix).
package fsperm

import (
	"os"
	"path/filepath"
)

// NotWritable says why the database file at path cannot be written, ""
// if it can.
func NotWritable(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o222 == 0 || !canWrite(path, false) {
		return "the file is not writable"
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o222 == 0 || !canWrite(dir, true) {
		return "its directory is not writable"
	}
	return ""
}
