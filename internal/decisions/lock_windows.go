package decisions

import (
	"os"

	"golang.org/x/sys/windows"
)

// Windows' file locks are mandatory: a locked range can be read or
// written only through the handle that locked it. So the lock covers one
// byte far past the end of any decisions file, taken through the same
// handle the append reads and writes: appends take turns, and a reader
// (or another program) opening the file meanwhile reads it as usual.

// lockedByte is where the locked byte is: at 2^63-2.
func lockedByte() *windows.Overlapped {
	return &windows.Overlapped{Offset: 0xfffffffe, OffsetHigh: 0x7fffffff}
}

// lock waits for the exclusive lock on the decisions file f.
func lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockedByte())
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockedByte())
}
