package interop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"arbiter/internal/akashiklog"
	"arbiter/service/interop"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store/field"
)

// benchLog writes an SDK log of n events: 20 agents, entries on mostly
// distinct topics (every 30th shares its neighbour's, so some conflict),
// every 12th superseding an earlier one.
func benchLog(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	agents := 20
	for i := 1; i <= n; i++ {
		agent := fmt.Sprintf("agent-%02d", i%agents)
		e := akashiklog.Event{V: 1, EventID: fmt.Sprintf("01J%023d", i), Lamport: int64(i), Agent: &agent,
			WallTime: clock.UnixMilli() + int64(i), Seq: int64(i)}
		if i <= agents {
			e.Type, e.EntryID, e.Role = akashiklog.TypeRegister, agent, "bench"
		} else {
			topic := i
			if i%30 == 0 {
				topic = i - 1
			}
			e.Type, e.EntryID, e.Intent = akashiklog.TypeRecord, fmt.Sprintf("01K%023d", i), "record a measurement"
			e.Entry, _ = json.Marshal(map[string]any{"topic": fmt.Sprint("t-", topic), "value": i,
				"text": fmt.Sprintf("Finding %d: the measurement says something *interesting*.", i)})
			if i%12 == 0 {
				e.Supersedes = fmt.Sprintf("01K%023d", i-7)
			}
			e.Confidence = &akashiklog.Confidence{Score: 0.7, Reason: "measured"}
		}
		line, err := akashiklog.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(append(line, '\n'))
	}
	return path
}

// BenchmarkImportAkashik10k imports a 10,000-event log into a fresh field.
func BenchmarkImportAkashik10k(b *testing.B) {
	log, err := akashiklog.ReadFile(benchLog(b, 10_000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "field.db")
		st, err := field.Create(context.Background(), path, rt.Policy())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := interop.ImportAkashik(context.Background(), st, log, time.Now())
		if err != nil || rep.Units.New == 0 {
			b.Fatalf("import: %+v, %v", rep, err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(log.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
