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
	at := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Nanoseconds()) / 1e6
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
}

// CPUPerOp reports the process's CPU time (user and system, all threads)
// per iteration, next to the wall time: on a shared machine the wall time
// includes waiting for a core, the CPU time does not. Call the returned
// function after the loop.
func CPUPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64((cpuTime()-start).Microseconds())/1e3/float64(b.N), "cpu-ms/op") }
}
