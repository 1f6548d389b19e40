package sqlite

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux a write waiting for its turn sleeps on its bell as a futex
// shared by every process that maps the line, and is woken the moment
// its turn comes.

// The futex operations on a word shared between processes (not
// FUTEX_PRIVATE).
const (
	futexWait = 0
	futexWake = 1
)

// ring wakes whoever sleeps on bell, which the caller has just changed.
func ring(bell *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(bell)), futexWake, 1<<30, 0, 0, 0)
}

// sleep waits until bell no longer holds rung, or for at most d.
func sleep(bell *uint32, rung uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(bell)), futexWait, uintptr(rung), uintptr(unsafe.Pointer(&ts)), 0, 0)
}
