//go:build unix

package serve

import "syscall"

// fdLimit is how many files the process may hold open (RLIMIT_NOFILE,
// which the Go runtime raises to its hard limit at start).
func fdLimit() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur > 1<<30 {
		return 0
	}
	return int(l.Cur)
}
