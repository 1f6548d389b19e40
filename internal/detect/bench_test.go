package detect_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/internal/detect"
	"arbiter/service/fieldgen"
)

// contents are units as the generated million-unit field holds them:
// fieldgen's markdown, sizes lognormal around 320 bytes, one in a hundred a
// long document of 4 to 40 KB.
func contents(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		size := int(320 * math.Exp(r.NormFloat64()*0.9))
		if r.IntN(100) == 0 {
			size = 4<<10 + r.IntN(36<<10)
		}
		out[i] = fieldgen.Markdown(r.Uint64(), max(40, min(48<<10, size)))
	}
	return out
}

// BenchmarkRecordAgainstCandidates is what detection adds to a RECORD
// once the word index has returned k candidates: reading the new unit and
// the candidates, and comparing it with each. The percentiles are over
// the operations of the run, each with other units and candidates.
func BenchmarkRecordAgainstCandidates(b *testing.B) {
	pool := contents(4000, 1)
	d := detect.New(detect.Medium)
	for _, k := range []int{20, 50} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			run := newRun(b)
			for i := 0; i < b.N; i++ {
				run.start()
				x := detect.Analyse(detect.Input{Content: pool[(i*(k+1))%len(pool)], Purpose: "Settle the retry budget"})
				for j := 1; j <= k; j++ {
					c := detect.Analyse(detect.Input{Content: pool[(i*(k+1)+j)%len(pool)], Purpose: "Settle the retry budget"})
					d.Compare(c, x)
				}
				run.stop()
			}
			run.report()
		})
	}
}

// run gathers each operation's wall and thread CPU times: on a shared
// machine the wall time includes waiting for a core, the CPU time does not.
type run struct {
	b         *testing.B
	wall, cpu []time.Duration
	c0        time.Duration
	began     time.Time
	unlock    func()
}

func newRun(b *testing.B) *run {
	r := &run{b: b, unlock: lockThread()}
	b.ReportAllocs()
	b.ResetTimer()
	return r
}

func (r *run) start() { r.began, r.c0 = time.Now(), threadCPU() }

func (r *run) stop() {
	r.wall = append(r.wall, time.Since(r.began))
	r.cpu = append(r.cpu, threadCPU()-r.c0)
}

func (r *run) report() {
	r.b.StopTimer()
	r.unlock()
	benchmetrics.Percentiles(r.b, r.wall)
	if len(r.cpu) == 0 || r.cpu[len(r.cpu)-1] == 0 && r.cpu[0] == 0 {
		return
	}
	slices.Sort(r.cpu)
	at := func(p float64) float64 {
		return float64(r.cpu[min(len(r.cpu)-1, int(p*float64(len(r.cpu))))].Nanoseconds()) / 1e6
	}
	r.b.ReportMetric(at(0.5), "p50-cpu-ms")
	r.b.ReportMetric(at(0.99), "p99-cpu-ms")
}

// BenchmarkCompare50Analysed is the same with the candidates read before:
// what a scan pays per unit when it keeps the units it has read.
func BenchmarkCompare50Analysed(b *testing.B) {
	const k = 50
	pool := contents(4000, 2)
	texts := make([]*detect.Text, len(pool))
	for i, c := range pool {
		texts[i] = detect.Analyse(detect.Input{Content: c})
	}
	d := detect.New(detect.Medium)
	run := newRun(b)
	for i := 0; i < b.N; i++ {
		run.start()
		x := texts[(i*(k+1))%len(texts)]
		for j := 1; j <= k; j++ {
			d.Compare(texts[(i*(k+1)+j)%len(texts)], x)
		}
		run.stop()
	}
	run.report()
}

// BenchmarkAnalyse reads one unit, by size; bytes/text is the heap a read
// unit holds, for sizing a scan's cache.
func BenchmarkAnalyse(b *testing.B) {
	for _, size := range []int{320, 4 << 10, 40 << 10} {
		b.Run(sizeName(size), func(b *testing.B) {
			text := fieldgen.Markdown(3, size)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				detect.Analyse(detect.Input{Content: text})
			}
			b.StopTimer()
			b.ReportMetric(float64(retained(text)), "bytes/text")
		})
	}
}

// BenchmarkCompareWorst compares two long documents full of numbers and
// negations, the costliest pair the bounds allow.
func BenchmarkCompareWorst(b *testing.B) {
	x := detect.Analyse(detect.Input{Content: strings.Repeat("- the p99 of checkout is not 40 ms: ", 1000)})
	y := detect.Analyse(detect.Input{Content: strings.Repeat("- checkout p99 is not under 90 ms, and retries are disabled; ", 1000)})
	d := detect.New(detect.High)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d.Compare(x, y)
	}
}

func sizeName(n int) string {
	if n >= 1<<10 {
		return strings.TrimSuffix(strings.TrimSuffix(time.Duration(n>>10).String(), "ns"), "s") + "KiB"
	}
	return time.Duration(n).String()[:len(time.Duration(n).String())-2] + "B"
}

// retained is the heap held by one read text, measured over many.
func retained(text string) int {
	const n = 200
	keep := make([]*detect.Text, n)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range keep {
		keep[i] = detect.Analyse(detect.Input{Content: text})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return int(after.HeapAlloc-before.HeapAlloc) / n
}
