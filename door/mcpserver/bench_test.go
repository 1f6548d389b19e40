package mcpserver_test

// The MCP server on large fields (docs/performance.md, "Agents over
// MCP"): a `conflict` tool call's round trip from the SDK's client, and
// how long after another connection's write the resources/updated for the
// inbox reaches a subscribed client. The 10k-unit field is built here; the
// million-unit one is a copy of ARBITER_BENCH_FIELD (built by `arbiter
// gen`, as scripts/perf.sh does), skipped when that is not set.
//
//	go test ./door/mcpserver -run '^$' -bench . -benchtime 200x

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/benchmetrics"
	"arbiter/model"
	"arbiter/service/fieldgen/benchfield"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchAgent is the agent served: a researcher who records much, so her
// inbox is among the longest.
const benchAgent = "res-iris"

// writer is another connection to the field: another process's rules.
func writer(b *testing.B, path string) *review.Service {
	b.Helper()
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return review.New(st)
}

// BenchmarkConflictTool is one `conflict` call from the SDK's client to the
// server in the same process, over the in-memory transport: the request
// and the answer (both units, ballots, rule picks, events, notifications)
// encoded, sent, decoded, and the result checked against the output
// schema by the server, on a different open conflict each time. "direct"
// is review.Service.Detail alone, for the cost of the protocol around it.
func BenchmarkConflictTool(b *testing.B) {
	benchfield.Fields(b, func(b *testing.B, path string) {
		ctx := context.Background()
		svc := writer(b, path)
		queue, err := svc.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses, Limit: 2000})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("mcp", func(b *testing.B) {
			c := mcptest.Serve(b, path, benchAgent, mcptest.Options{})
			var times []time.Duration
			i := 0
			defer benchmetrics.CPUPerOp(b)()
			for b.Loop() {
				id := queue[i%len(queue)].ID
				t := time.Now()
				res, err := c.Session.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolConflict,
					Arguments: map[string]any{"conflict_id": id}})
				times = append(times, time.Since(t))
				if err != nil || res.IsError {
					b.Fatalf("conflict %s: %v %s", id, err, mcptest.Text(res))
				}
				i++
			}
			benchmetrics.Percentiles(b, times)
		})
		b.Run("direct", func(b *testing.B) {
			var times []time.Duration
			i := 0
			defer benchmetrics.CPUPerOp(b)()
			for b.Loop() {
				t := time.Now()
				if _, err := svc.Detail(ctx, queue[i%len(queue)].ID); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t))
				i++
			}
			benchmetrics.Percentiles(b, times)
		})
	})
}

// BenchmarkConflictsTool is the conflicts call an agent makes first: by
// default the served agent's open conflicts, then the review queue, 50
// rows.
func BenchmarkConflictsTool(b *testing.B) {
	benchfield.Fields(b, func(b *testing.B, path string) {
		ctx := context.Background()
		c := mcptest.Serve(b, path, benchAgent, mcptest.Options{})
		var times []time.Duration
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			t := time.Now()
			res, err := c.Session.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolConflicts, Arguments: map[string]any{}})
			times = append(times, time.Since(t))
			if err != nil || res.IsError {
				b.Fatalf("conflicts: %v %s", err, mcptest.Text(res))
			}
		}
		benchmetrics.Percentiles(b, times)
	})
}

// BenchmarkInboxNotification is the time from another connection's commit
// to the subscribed client's resources/updated for arbiter://inbox: an
// agent records a unit contradicting one of the served agent's, which
// opens a conflict and notifies her. The server polls the field every
// 100 ms (its default), so the latency is spread over about 0–100 ms plus
// the work of noticing. start-ms is the server's start: checking the
// agent and reading her inbox to its end.
func BenchmarkInboxNotification(b *testing.B) {
	const poll = 100 * time.Millisecond
	benchfield.Fields(b, func(b *testing.B, path string) {
		ctx := context.Background()
		w := writer(b, path)
		score := 0.7
		unit := func(by, content string, rel []model.Relation) string {
			res, err := w.Record(ctx, by, model.RecordRequest{Type: model.TypeFinding, Content: content,
				Intent: model.Intent{Purpose: "measure notifications"}, Relations: rel,
				Confidence: model.Confidence{Score: &score, Reasoning: "a benchmark"}})
			if err != nil {
				b.Fatal(err)
			}
			return res.UnitID
		}
		target := unit(benchAgent, "The claim others contradict.", nil)
		start := time.Now()
		c := mcptest.Serve(b, path, benchAgent, mcptest.Options{Poll: poll})
		started := time.Since(start)
		c.Subscribe(mcpserver.InboxURI)
		// Writes come at any moment relative to the server's polls: each
		// waits a random part of the interval first (not timed).
		phase := rand.New(rand.NewPCG(1, 2))
		var times []time.Duration
		for b.Loop() {
			b.StopTimer()
			time.Sleep(time.Duration(phase.Int64N(int64(poll))))
			b.StartTimer()
			unit("res-kai", "A contradiction.", []model.Relation{{Type: model.RelContradicts, TargetID: target}})
			t := time.Now()
			c.WaitUpdated(mcpserver.InboxURI)
			times = append(times, time.Since(t))
		}
		benchmetrics.Percentiles(b, times)
		b.ReportMetric(float64(started.Microseconds())/1e3, "start-ms")
	})
}
