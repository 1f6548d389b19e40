// Package benchmetrics adds the figures arbiter's benchmarks report beside
// Go's own: percentiles of per-operation times, and CPU time per operation.
package benchmetrics

import (
	"slices"
	"testing"
	"time"
)

// Percentiles adds the median, 99th percentile and maximum of times to
// the benchmark's figures.
func Percentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	b.ReportMetric(at(times, 0.50), "p50-ms")
	b.ReportMetric(at(times, 0.99), "p99-ms")
	b.ReportMetric(at(times, 1), "max-ms")
}

// Percentile is the p-th (0 to 1) of times in milliseconds, 0 for none;
// times is left as it was.
func Percentile(times []time.Duration, p float64) float64 {
	if len(times) == 0 {
		return 0
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	return at(sorted, p)
}

// at is the p-th of sorted times, in milliseconds.
func at(sorted []time.Duration, p float64) float64 {
	return float64(sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Nanoseconds()) / 1e6
}

// CPUPerOp reports the process's CPU time (user and system, all threads)
// per iteration, next to the wall time: on a shared machine the wall time
// includes waiting for a core, the CPU time does not. Call the returned
// function after the loop.
func CPUPerOp(b *testing.B) func() {
	start := ProcessCPU()
	return func() { b.ReportMetric(float64((ProcessCPU()-start).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }
}
