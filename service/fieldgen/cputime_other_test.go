//go:build !linux

package fieldgen_test

import "time"

// processCPU is not measured outside Linux: the benchmarks report wall
// times only.
func processCPU() time.Duration { return 0 }
