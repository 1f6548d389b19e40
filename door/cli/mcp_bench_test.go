package cli

import (
	"context"
	"os/exec"
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

// BenchmarkMCPConflictOverStdio is a `conflict` call's round trip from the
// SDK's client to `arbiter mcp` in a subprocess, over its stdin and stdout
// (docs/performance.md, "Agents over MCP"), on a different open conflict
// each time: door/mcpserver's BenchmarkConflictTool with a real
// process and real pipes. The 1M field is a copy of ARBITER_BENCH_FIELD.
//
//	go test ./door/cli -run '^$' -bench MCPConflictOverStdio -benchtime 200x
func BenchmarkMCPConflictOverStdio(b *testing.B) {
	run := func(b *testing.B, db string) {
		ctx := context.Background()
		st, err := field.Open(ctx, db, store.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		queue, err := review.New(st).List(ctx, model.ListQuery{Statuses: model.ReviewStatuses, Limit: 2000})
		st.Close()
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "mcp", "--db", db, "--as", "res-iris")
		cmd.Env = cleanEnv()
		c := mcptest.Connect(b, &mcp.CommandTransport{Command: cmd}, mcptest.Options{})
		var times []time.Duration
		i := 0
		defer benchmetrics.CPUPerOp(b)() // the client's CPU only: the server is another process
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
	}
	benchfield.Fields(b, run)
}
