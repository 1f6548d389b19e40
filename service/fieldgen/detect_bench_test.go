package fieldgen_test

// Detection on large fields (docs/performance.md, "Detecting
// contradictions in RECORD and in a scan"): what detection adds to a
// RECORD, and a scan of the whole field.
//
//	ARBITER_BENCH_FIELD=F go test ./service/fieldgen -run '^$' -bench 'RecordDetection' -benchtime 2000x
//	ARBITER_BENCH_FIELD=F go test ./service/fieldgen -run '^$' -bench 'DetectScan' -benchtime 1x -timeout 60m

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/fieldgen/benchfield"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
)

// recordBlock is how many RECORDs are timed at one sensitivity before the
// policy turns to the other: the two are measured in turns, through the
// same minutes of the machine's load.
const recordBlock = 50

// BenchmarkRecordDetection is RECORD of units like the field's (the
// generator's markdown, lognormal sizes, one in a hundred a long
// document; the field's purposes), in turns of recordBlock: with
// detection off; at medium as `arbiter record` does it, reading every
// candidate (cold); and at medium as `arbiter serve` and `arbiter mcp` do
// it, keeping the units read in a cache (warm). It reports each one's p50
// and p99 (wall, and the process's CPU: RECORD compares on every core)
// and what medium adds to off at p99.
func BenchmarkRecordDetection(b *testing.B) {
	benchfield.Fields(b, func(b *testing.B, path string) { recordDetection(b, path) })
	b.Run("1M-postgres", func(b *testing.B) {
		name := os.Getenv("ARBITER_BENCH_POSTGRES")
		if name == "" {
			b.Skip("set ARBITER_BENCH_POSTGRES to a field on PostgreSQL built by `arbiter gen` (scripts/perf-postgres.sh does)")
		}
		recordDetection(b, name)
	})
}

func recordDetection(b *testing.B, path string) {
	ctx := context.Background()
	st, err := field.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cold, warm := review.New(st), review.New(st).WithDetectCache(64<<20)
	r := rand.New(rand.NewPCG(7, 11))
	set := func(level model.Sensitivity) {
		if _, err := cold.UpdatePolicy(ctx, fieldgen.Operator, func(p *model.Policy) error {
			p.DetectionSensitivity = level
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	turns := []struct {
		name  string
		level model.Sensitivity
		svc   *review.Service
	}{{"off", model.SensitivityOff, cold}, {"cold", model.SensitivityMedium, cold}, {"warm", model.SensitivityMedium, warm}}
	wall, cpu := make([][]time.Duration, len(turns)), make([][]time.Duration, len(turns))
	opened := 0
	i := 0
	defer set(model.SensitivityOff)
	for b.Loop() {
		k := (i / recordBlock) % len(turns)
		if i%recordBlock == 0 {
			b.StopTimer()
			set(turns[k].level)
			b.StartTimer()
		}
		req := benchUnit(r, i)
		t, c := time.Now(), benchmetrics.ProcessCPU()
		res, err := turns[k].svc.Record(ctx, "res-iris", req)
		cpu[k] = append(cpu[k], benchmetrics.ProcessCPU()-c)
		wall[k] = append(wall[k], time.Since(t))
		if err != nil {
			b.Fatal(err)
		}
		opened += len(res.Conflicts)
		i++
	}
	p99 := map[string]float64{}
	for k, turn := range turns {
		for _, m := range []struct {
			name  string
			times []time.Duration
		}{{turn.name, wall[k]}, {turn.name + "-cpu", cpu[k]}} {
			b.ReportMetric(benchmetrics.Percentile(m.times, 0.50), "p50-"+m.name+"-ms")
			p99[m.name] = benchmetrics.Percentile(m.times, 0.99)
			b.ReportMetric(p99[m.name], "p99-"+m.name+"-ms")
		}
	}
	for _, t := range []string{"cold", "warm"} {
		b.ReportMetric(p99[t]-p99["off"], "p99-added-"+t+"-ms")
		b.ReportMetric(p99[t+"-cpu"]-p99["off-cpu"], "p99-added-"+t+"-cpu-ms")
	}
	b.ReportMetric(float64(opened)/float64(max(1, len(wall[1])+len(wall[2]))), "conflicts/record")
}

// benchUnit is the ith unit a benchmark records: like the field's.
func benchUnit(r *rand.Rand, i int) model.RecordRequest {
	size := int(320 * math.Exp(r.NormFloat64()*0.9))
	if r.IntN(100) == 0 {
		size = 4<<10 + r.IntN(36<<10)
	}
	score := 0.6
	purposes := []string{"Baseline %s before the cutover", "Check %s against production", "Decide %s",
		"Review %s after the incident"}
	topics := []string{"the webhook retry budget", "the ledger reconciliation window", "p99 latency of the capture path",
		"the fraud score threshold", "the settlement batch size", "the read-replica lag budget"}
	return model.RecordRequest{Type: model.TypeFinding, Content: fieldgen.Markdown(uint64(1_000_000+i), max(40, min(48<<10, size))),
		Intent:     model.Intent{Purpose: fmt.Sprintf(purposes[r.IntN(len(purposes))], topics[r.IntN(len(topics))])},
		Confidence: model.Confidence{Score: &score, Reasoning: "benchmark"}}
}

// BenchmarkDetectScan is `detect --mode scan` of the whole field at
// medium, from its first unit, then again (which opens nothing new). It
// reports the first scan's minutes, units a second, conflicts opened and
// the heap's peak (sampled every 50 ms), and the second scan's minutes.
func BenchmarkDetectScan(b *testing.B) {
	benchFields(b, func(b *testing.B, svc *review.Service) {
		ctx := context.Background()
		if _, err := svc.UpdatePolicy(ctx, fieldgen.Operator, func(p *model.Policy) error {
			p.DetectionSensitivity = model.SensitivityMedium
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			peak := heapPeak()
			start := time.Now()
			first, err := svc.DetectScan(ctx, fieldgen.Operator, model.DetectRequest{Mode: model.DetectScan}, nil)
			took := time.Since(start)
			top := peak()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(took.Minutes(), "scan-min")
			b.ReportMetric(float64(first.Scan.Done)/took.Seconds(), "units/s")
			b.ReportMetric(float64(first.Scan.Found), "opened")
			b.ReportMetric(float64(top)/(1<<20), "peak-heap-MB")
			start = time.Now()
			again, err := svc.DetectScan(ctx, fieldgen.Operator, model.DetectRequest{Mode: model.DetectScan}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Minutes(), "rescan-min")
			b.ReportMetric(float64(again.Scan.Found), "reopened")
		}
	})
}

// heapPeak samples the live heap every 50 ms until the function it
// returns is called, which returns the largest sample.
func heapPeak() func() uint64 {
	var top atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > top.Load() {
				top.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return top.Load()
	}
}
