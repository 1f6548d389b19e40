//go:build unix

package benchmetrics

import (
	"syscall"
	"time"
)

// ProcessCPU is the process's CPU time so far (all its threads), user and system.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
