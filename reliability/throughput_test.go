package reliability

// Writers and deciders in separate processes, measured
// (docs/performance.md, "A team on PostgreSQL"):
//
//   - BenchmarkDecidersInProcesses: 1 and then 8 processes, each deciding
//     conflicts of its own as a human operator, one after the other
//     (read the conflict, then MERGE), on the field ARBITER_BENCH_POSTGRES
//     or ARBITER_BENCH_FIELD names (its escalated conflicts are used up:
//     300 per process by default, ARBITER_BENCH_DECISIONS);
//   - BenchmarkWritersInProcesses: 1 and then 8 processes recording units
//     as fast as they can for ARBITER_BENCH_FOR (default 30s) on a new
//     field (a file, or with ARBITER_TEST_ENGINE=postgres a schema on the
//     test server), each write timed from asking to the field's answer,
//     waiting for other writers included.
//
//	ARBITER_BENCH_POSTGRES=postgres://… go test ./reliability -run '^$' -bench DecidersInProcesses -benchtime 1x
//	ARBITER_BENCH_RTT=1ms ARBITER_BENCH_POSTGRES=postgres://… go test ./reliability -run '^$' -bench DecidersInProcesses -benchtime 1x
//
// With ARBITER_BENCH_RTT the deciders reach the server through a proxy
// in the benchmark's process that holds every packet back half that
// time each way: a server across a network rather than on the same
// machine; the writers' too, on PostgreSQL.
//	ARBITER_BENCH_FOR=3m go test ./reliability -run '^$' -bench WritersInProcesses -benchtime 1x -timeout 30m
//	ARBITER_TEST_ENGINE=postgres ARBITER_BENCH_RTT=10ms ARBITER_BENCH_FOR=10s go test ./reliability -run '^$' -bench WritersInProcesses -benchtime 1x

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/internal/pgtest"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/jackc/pgx/v5/pgconn"
)

// The environment of a benchmark's worker, besides envField, envRole and
// envUntil.
const (
	envIndex = "ARBITER_BENCH_INDEX" // this worker's share: conflicts index, index+of, …
	envOf    = "ARBITER_BENCH_OF"
	envCount = "ARBITER_BENCH_COUNT" // decisions to take
	envStart = "ARBITER_BENCH_START" // a file: start once it exists
)

func BenchmarkDecidersInProcesses(b *testing.B) {
	name := os.Getenv("ARBITER_BENCH_POSTGRES")
	if name == "" && os.Getenv("ARBITER_BENCH_FIELD") != "" {
		name = filepath.Join(b.TempDir(), "field.db")
		if err := benchmetrics.CopyFile(os.Getenv("ARBITER_BENCH_FIELD"), name); err != nil {
			b.Fatal(err)
		}
	}
	if name == "" {
		b.Skip("set ARBITER_BENCH_POSTGRES (or ARBITER_BENCH_FIELD) to a field built by `arbiter gen`")
	}
	count := 300
	if n, err := strconv.Atoi(os.Getenv("ARBITER_BENCH_DECISIONS")); err == nil && n > 0 {
		count = n
	}
	if rtt, err := time.ParseDuration(os.Getenv("ARBITER_BENCH_RTT")); err == nil && rtt > 0 {
		if !field.IsServer(name) {
			b.Fatal("ARBITER_BENCH_RTT needs a field on a server")
		}
		name = throughLatency(b, name, rtt)
		b.Logf("every connection goes through a proxy adding %s to each round trip", rtt)
	}
	for _, procs := range []int{1, 8} {
		b.Run(strconv.Itoa(procs), func(b *testing.B) {
			times, took := runBench(b, "bench-decider", name, procs, count, time.Time{})
			decisions := len(times)
			if decisions != procs*count {
				b.Fatalf("%d decisions of %d", decisions, procs*count)
			}
			b.ReportMetric(float64(decisions)/took.Seconds(), "decisions/s")
			benchmetrics.Percentiles(b, times)
		})
	}
}

func BenchmarkWritersInProcesses(b *testing.B) {
	run := 30 * time.Second
	if d, err := time.ParseDuration(os.Getenv("ARBITER_BENCH_FOR")); err == nil {
		run = d
	}
	rtt, _ := time.ParseDuration(os.Getenv("ARBITER_BENCH_RTT"))
	for _, procs := range []int{1, 8} {
		b.Run(strconv.Itoa(procs), func(b *testing.B) {
			f := rt.New(b, rt.Policy())
			f.Store.Close()
			name := f.Path
			if rtt > 0 {
				if !field.IsServer(name) {
					b.Fatal("ARBITER_BENCH_RTT needs a field on a server (ARBITER_TEST_ENGINE=postgres)")
				}
				name = throughLatency(b, name, rtt)
			}
			times, took := runBench(b, "bench-writer", name, procs, 0, time.Now().Add(run))
			b.ReportMetric(float64(len(times))/took.Seconds(), "writes/s")
			benchmetrics.Percentiles(b, times)
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)*999/1000].Microseconds())/1e3, "p99.9-ms")
			b.ReportMetric(float64(len(times)), "writes")
		})
	}
}

// runBench starts procs workers of role on the field name, lets them
// start together, and returns every operation's time and the wall time
// from the start until the last worker finished.
func runBench(b *testing.B, role, name string, procs, count int, until time.Time) ([]time.Duration, time.Duration) {
	b.Helper()
	dir := b.TempDir()
	start := filepath.Join(dir, "start")
	var ps []*process
	for i := range procs {
		p := &process{role: role, exited: make(chan error, 1)}
		p.cmd = newWorkerCmd(role, name, until, i,
			envIndex+"="+strconv.Itoa(i), envOf+"="+strconv.Itoa(procs), envCount+"="+strconv.Itoa(count),
			envStart+"="+start)
		p.cmd.Stdout, p.cmd.Stderr = p, p
		if err := p.cmd.Start(); err != nil {
			b.Fatal(err)
		}
		go func() { p.exited <- p.cmd.Wait() }()
		ps = append(ps, p)
	}
	for _, p := range ps {
		for !strings.Contains(p.output(), "READY") {
			select {
			case err := <-p.exited:
				b.Fatalf("%s worker quit before it was ready: %v\n%s", role, err, tail(p.output()))
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	b.ResetTimer()
	t0 := time.Now()
	if err := os.WriteFile(start, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for _, p := range ps {
		if err := <-p.exited; err != nil {
			b.Fatalf("%s worker: %v\n%s", role, err, tail(p.output()))
		}
		sc := bufio.NewScanner(strings.NewReader(p.output()))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "T":
				ns, _ := strconv.ParseInt(f[1], 10, 64)
				times = append(times, time.Duration(ns))
			case len(f) > 0 && f[0] == "ERR":
				b.Errorf("%s worker: %s", role, sc.Text())
			}
		}
	}
	return times, time.Since(t0)
}

// runBenchWorker is a benchmark's worker: it prints READY once the field
// is open and its work chosen, waits for the start file, then prints one
// "T nanoseconds" line per operation.
func runBenchWorker(role string) int {
	ctx := context.Background()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	st, err := field.Open(ctx, os.Getenv(envField), store.Options{BusyTimeout: 30 * time.Second})
	if err != nil {
		fmt.Fprintf(out, "ERR open: %v\n", err)
		return 1
	}
	defer st.Close()
	svc := review.New(st)
	index, _ := strconv.Atoi(os.Getenv(envIndex))
	of, _ := strconv.Atoi(os.Getenv(envOf))
	count, _ := strconv.Atoi(os.Getenv(envCount))
	var todo []model.ConflictSummary
	if role == "bench-decider" {
		rows, err := svc.List(ctx, model.ListQuery{Statuses: []model.ConflictStatus{model.StatusEscalated}})
		if err != nil {
			fmt.Fprintf(out, "ERR list: %v\n", err)
			return 1
		}
		for i := index; i < len(rows) && len(todo) < count; i += of {
			todo = append(todo, rows[i])
		}
		if len(todo) < count {
			fmt.Fprintf(out, "ERR only %d escalated conflicts for this worker, want %d\n", len(todo), count)
			return 1
		}
	}
	fmt.Fprintln(out, "READY")
	out.Flush()
	// All the benchmark's workers start at the signal, together.
	if !testwait.Until(testwait.Deadline, func() bool { _, err := os.Stat(os.Getenv(envStart)); return err == nil }) {
		fmt.Fprintln(out, "ERR no start signal")
		return 1
	}
	switch role {
	case "bench-decider":
		strategies := []model.Strategy{model.Dismiss, model.LastWriteWins}
		for i, c := range todo {
			t := time.Now()
			d, err := svc.Detail(ctx, c.ID)
			if err == nil {
				_, err = svc.Merge(ctx, fieldgen.Operator, model.MergeRequest{ConflictID: c.ID, Strategy: strategies[i%2],
					ExpectedVersion: d.Conflict.Version, Resolution: model.MergeResolution{Rationale: "decided in a benchmark"}})
			}
			if err != nil {
				fmt.Fprintf(out, "ERR %s: %v\n", c.ID, err)
				return 1
			}
			fmt.Fprintf(out, "T %d\n", time.Since(t).Nanoseconds())
		}
	case "bench-writer":
		until, _ := strconv.ParseInt(os.Getenv(envUntil), 10, 64)
		score := 0.5
		authors := []string{rt.Senior1, rt.Senior2, rt.Standard, rt.Scout, rt.Lead1}
		for i := 0; time.Now().UnixNano() < until; i++ {
			t := time.Now()
			_, err := svc.Record(ctx, authors[(index+i)%len(authors)], model.RecordRequest{Type: model.TypeFinding,
				Content:    fmt.Sprintf("Writer %d measured p99 at %d ms in run %d.", index, 40+i%60, i),
				Intent:     model.Intent{Purpose: "measure the write lock's waits"},
				Confidence: model.Confidence{Score: &score, Reasoning: "a benchmark"}})
			if err != nil {
				fmt.Fprintf(out, "ERR record: %v\n", err)
				return 1
			}
			fmt.Fprintf(out, "T %d\n", time.Since(t).Nanoseconds())
		}
	}
	return 0
}

// throughLatency starts a TCP proxy in front of the server the
// connection string name points at, adding rtt to every round trip
// (half each way), and returns name pointed at the proxy.
func throughLatency(b *testing.B, name string, rtt time.Duration) string {
	b.Helper()
	cfg, err := pgconn.ParseConfig(name)
	if err != nil {
		b.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial(network, addr)
			if err != nil {
				client.Close()
				continue
			}
			go delayed(client, server, rtt/2)
			go delayed(server, client, rtt/2)
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	return pgtest.WithParam(pgtest.WithParam(pgtest.WithParam(name, "host", host), "port", port), "sslmode", "disable")
}

// delayed copies from src to dst, each chunk held back by d.
func delayed(src, dst net.Conn, d time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	ch := make(chan chunk, 1024)
	go func() {
		defer close(ch)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				ch <- chunk{time.Now().Add(d), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range ch {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}
