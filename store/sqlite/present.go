package sqlite

import (
	"context"
	"os"

	"arbiter/internal/fsperm"
	"arbiter/model"
	"arbiter/store"
)

// A field file deleted or replaced under a running arbiter would take
// its writes into a file nobody opens again: SQLite writes on through
// the connections it holds, and they vanish at the next start. So the
// store notes what file it opened and, in each write transaction once it
// holds the write lock, checks that the path still names that file (its
// device and inode: os.SameFile), refusing with FIELD_GONE otherwise.
// Connections opened later never create a file at the path (mode=rw).

// noteFile records the file the field was opened at.
func (s *Store) noteFile() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return &OpenError{Name: s.path, Reason: "cannot read: " + err.Error(), Err: err}
	}
	s.file = fi
	return nil
}

// present is nil while the field's path names the file it was opened
// at, else the refusal of op. Reads and the watch are refused too: a
// connection opened after the file went cannot open it, and one opened
// before reads a file nobody writes any more, so a read gets the same
// answer however the pool serves it, and a screen watching the field
// learns the file went without waiting for a write.
func (s *Store) present(op string) error {
	if s.file == nil {
		return nil
	}
	if fi, err := os.Stat(s.path); err == nil && os.SameFile(fi, s.file) {
		return nil
	}
	return model.Errorf(op, model.CodeFieldGone, "restart arbiter on the field, restored from a backup if it was deleted",
		"the field file %s is no longer at its path: it was deleted or replaced; nothing was written", s.path)
}

// Check reads the field and says whether it can take writes where it was
// opened: nil, or what a write would meet — a file no longer at its
// path, a disk that turned read-only or full. A field opened read-only
// on purpose is only read.
func (s *Store) Check(ctx context.Context) error {
	if err := s.present("CHECK"); err != nil {
		return err
	}
	if err := s.Read(ctx, func(tx store.Tx) error { _, err := tx.Epoch(); return err }); err != nil {
		return err
	}
	switch {
	case s.opt.ReadOnly:
		return nil
	case s.readOnly:
		return s.refuseWrite()
	}
	if why := fsperm.NotWritable(s.path); why != "" {
		return store.ReadOnlyError(s.opt, why)
	}
	if diskFull(s.path) {
		return model.Errorf("CHECK", model.CodeStorageFull, "free disk space next to the field",
			"the field's disk is full (less than 64 KB free)")
	}
	return s.present("CHECK")
}
