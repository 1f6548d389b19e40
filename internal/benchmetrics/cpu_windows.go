package benchmetrics

import (
	"time"

	"golang.org/x/sys/windows"
)

// ProcessCPU is the process's CPU time so far (all its threads), kernel and user.
func ProcessCPU() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user) != nil {
		return 0
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100 // 100 ns ticks
}
