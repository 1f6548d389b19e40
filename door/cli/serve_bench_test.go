package cli

// Benchmarks of arbiter serve, real processes and real clients
// (docs/performance.md, "A team over arbiter serve"):
//
//	go test ./door/cli -run '^$' -bench 'Serve' -benchtime 1x
//
// ARBITER_BENCH_SSH sets the SSH sessions (default 50) and
// ARBITER_BENCH_MCP the MCP sessions (default 100).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/benchmetrics"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func benchCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// demoField makes the demo field in a temporary directory and returns it
// with its rules on a connection of their own (another process's).
func demoField(b *testing.B) (string, *review.Service) {
	b.Helper()
	dir := b.TempDir()
	db := filepath.Join(dir, "demo.db")
	cmd := exec.Command(bin, "init", "--db", db, "--demo")
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("init --demo: %v %s", err, out)
	}
	st, err := field.Open(context.Background(), db, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return db, review.New(st)
}

func finding(content string, rel ...model.Relation) model.RecordRequest {
	score := 0.7
	return model.RecordRequest{Type: model.TypeFinding, Content: content, Intent: model.Intent{Purpose: "a benchmark"},
		Confidence: model.Confidence{Score: &score, Reasoning: "measured"}, Relations: rel}
}

var recordArgs = map[string]any{"type": "finding", "content": "p99 is 180 ms in production",
	"intent": map[string]any{"purpose": "a benchmark"}, "confidence": map[string]any{"score": 0.7, "reasoning": "measured"}}

// BenchmarkServeRecord is one `record` call's round trip from the SDK's
// client to a server in another process: `arbiter mcp` over its stdin and
// stdout, and `arbiter serve` over Streamable HTTP with a bearer token.
func BenchmarkServeRecord(b *testing.B) {
	db, svc := demoField(b)
	token, _, err := svc.TokenIssue(context.Background(), "ops-maya", "ana-quill")
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, c *mcptest.Client) {
		var times []time.Duration
		for b.Loop() {
			t := time.Now()
			res, err := c.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolRecord, Arguments: recordArgs})
			times = append(times, time.Since(t))
			if err != nil || res.IsError {
				b.Fatalf("record: %v %s", err, mcptest.Text(res))
			}
		}
		benchmetrics.Percentiles(b, times)
	}
	b.Run("stdio", func(b *testing.B) {
		cmd := exec.Command(bin, "mcp", "--db", db, "--as", "ana-quill")
		cmd.Env = cleanEnv()
		run(b, mcptest.Connect(b, &mcp.CommandTransport{Command: cmd}, mcptest.Options{ProtocolVersion: mcptest.Legacy}))
	})
	b.Run("http", func(b *testing.B) {
		srv := serveField(b, db, "--http", "127.0.0.1:0")
		run(b, mcpOverHTTPB(b, "http://"+srv.httpAddr+"/mcp", token))
	})
}

func mcpOverHTTPB(b *testing.B, url, token string) *mcptest.Client {
	return mcptest.Connect(b, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(token)},
		mcptest.Options{ProtocolVersion: mcptest.Legacy})
}

// BenchmarkServeMCPNotices: ARBITER_BENCH_MCP agents, each with a session
// of its own to `arbiter serve --http` subscribed to its inbox, beside
// ARBITER_BENCH_IDLE idle sockets from other addresses (0: none);
// another process contradicts one agent's unit after another, at a random
// moment of the server's 100 ms poll, and the time to that agent's
// resources/updated is taken.
func BenchmarkServeMCPNotices(b *testing.B) {
	n := benchCount("ARBITER_BENCH_MCP", 100)
	db, svc := demoField(b)
	ctx := context.Background()
	units := make([]string, n)
	tokens := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("bench-%03d", i)
		if _, err := svc.Register(ctx, model.Agent{ID: id, Role: "analyst", Kind: model.KindAgent, Authority: model.AuthorityStandard}); err != nil {
			b.Fatal(err)
		}
		res, err := svc.Record(ctx, id, finding("the claim of "+id))
		if err != nil {
			b.Fatal(err)
		}
		units[i] = res.UnitID
		if tokens[i], _, err = svc.TokenIssue(ctx, "ops-maya", id); err != nil {
			b.Fatal(err)
		}
	}
	srv := serveField(b, db, "--http", "127.0.0.1:0")
	clients := make([]*mcptest.Client, n)
	for i := range n {
		clients[i] = mcpOverHTTPB(b, "http://"+srv.httpAddr+"/mcp", tokens[i])
		clients[i].Subscribe(mcpserver.InboxURI)
	}
	rss := rssOf(b, srv.cmd.Process.Pid)
	idle := 0
	if os.Getenv("ARBITER_BENCH_IDLE") != "0" {
		var stop func()
		stop, idle = idleSockets(b, srv.httpAddr, benchCount("ARBITER_BENCH_IDLE", 2000))
		defer stop()
	}
	phase := rand.New(rand.NewPCG(1, 2))
	var times []time.Duration
	i := 0
	for b.Loop() {
		for range n {
			b.StopTimer()
			time.Sleep(time.Duration(phase.Int64N(int64(100 * time.Millisecond))))
			b.StartTimer()
			if _, err := svc.Record(ctx, "data-wren", finding("a contradiction",
				model.Relation{Type: model.RelContradicts, TargetID: units[i%n]})); err != nil {
				b.Fatal(err)
			}
			t := time.Now()
			clients[i%n].WaitUpdated(mcpserver.InboxURI)
			times = append(times, time.Since(t))
			i++
		}
	}
	benchmetrics.Percentiles(b, times)
	b.ReportMetric(float64(n), "sessions")
	b.ReportMetric(float64(idle), "idle-sockets")
	b.ReportMetric(rss/float64(n), "server-MB/session")
}

// rssOf is a process's resident memory in MB.
func rssOf(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skip("no /proc")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}
