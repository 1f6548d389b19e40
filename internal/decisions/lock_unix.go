//go:build unix

package decisions

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock waits for the exclusive lock on the decisions file f: an
// advisory flock(2), which every arbiter appending to the file takes and
// readers need not.
func lock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
