//go:build !linux

package fieldgen_test

import "time"

// threadCPU is not measured outside Linux: the benchmarks report wall
// times only.
func threadCPU() time.Duration { return 0 }

func lockThread() func() { return func() {} }
