package fieldgen_test

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling thread has used: what an operation
// costs, whatever else the machine runs while it runs. The caller locks
// itself to its thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
