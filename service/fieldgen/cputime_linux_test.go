package fieldgen_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the CPU time the whole process has used, user and
// system: an operation that runs on several goroutines (RECORD compares
// its candidates on every core) is measured by it, and waiting for a core
// on a loaded machine is not.
func processCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
