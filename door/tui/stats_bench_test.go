package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"
)

// BenchmarkStatsFirstFrame is the stats key on a large field
// (ARBITER_BENCH_FIELD, or a field of 10k open conflicts built here), from
// the key to the frame: the engine aggregates every figure of the last 30
// days, and the screen draws its first frame of charts.
func BenchmarkStatsFirstFrame(b *testing.B) {
	path := queueField(b, 10_000)
	ctx := context.Background()
	st, err := arbiterfield.Open(ctx, path, store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	m := New(review.New(st), Options{Field: path, As: fieldgen.Operator, Theme: "dark"})
	m.Update(benchSize)
	var frame string
	var times []time.Duration
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		t := time.Now()
		_, cmd := m.Update(keyMsg("#"))
		m.Update(cmd())
		frame = m.View().Content
		times = append(times, time.Since(t))
		m.Update(keyMsg("esc"))
	}
	benchmetrics.Percentiles(b, times)
	if !strings.Contains(frame, "Open conflicts:") || !strings.Contains(frame, "█") {
		b.Fatalf("the first frame shows no figures:\n%s", frame)
	}
}
