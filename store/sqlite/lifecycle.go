package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// A field is its file and, while it is open or after a crash, SQLite's
// companions of it: the -wal file (writes not yet checkpointed), the
// -shm file (the index of the -wal file shared between processes) and,
// outside WAL mode, a -journal file. Create makes the file; Remove takes
// a field Create made back, companions and all.

// companionSuffixes are the suffixes of the files SQLite keeps beside a
// database file, the file itself first.
func companionSuffixes() []string { return []string{"", "-wal", "-shm", "-journal"} }

// Remove closes the field and deletes its file and SQLite's companions
// of it. It refuses a field Open opened: only one that Create made, for
// a command that failed while filling it.
func (s *Store) Remove(context.Context) error {
	if !s.created {
		return &OpenError{Name: s.path, Reason: "was opened, not created here: it is not removed", Err: nil}
	}
	s.created = false
	return errors.Join(s.Close(), removeFiles(s.path))
}

// removeFiles deletes the database file at path and its companions;
// those that are not there are no error.
func removeFiles(path string) error {
	var errs []error
	for _, suffix := range companionSuffixes() {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
