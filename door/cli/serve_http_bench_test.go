package cli

// Benchmarks of what idle sockets and uninitialized MCP sessions cost
// `arbiter serve --http` (docs/performance.md, "A team over arbiter
// serve"):
//
//	go test ./door/cli -run '^$' -bench 'ServeMCPNotices|ServeHTTPIdleCost' -benchtime 3x
//
// ARBITER_BENCH_IDLE sets the idle sockets (default 2000).

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/model"
)

// idleSockets keeps n sockets open to addr from 127.0.0.2 on (250 an
// address, under the per-address cap), sending nothing: each one the
// server closes (its headers' timeout) is opened again after a pause of up
// to a second, so that the benchmark's own dials do not all fall at once,
// until stop returns. It waits until all n are open once. Where no
// socket can be bound to 127.0.0.2 (only Linux's loopback takes all of
// 127/8) it opens none and says so: it returns 0 sockets.
func idleSockets(b *testing.B, addr string, n int) (stop func(), open int) {
	b.Helper()
	if c, err := dialFrom("127.0.0.2", addr); err != nil {
		b.Logf("no idle sockets: cannot connect from 127.0.0.2: %v", err)
		return func() {}, 0
	} else {
		c.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg, up sync.WaitGroup
	up.Add(n)
	for i := range n {
		ip := fmt.Sprintf("127.0.0.%d", 2+i/250)
		wg.Go(func() {
			first := true
			for ctx.Err() == nil {
				c, err := dialFrom(ip, addr)
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				if first {
					up.Done()
					first = false
				}
				stopRead := context.AfterFunc(ctx, func() { c.Close() })
				c.Read(make([]byte, 1)) // until the server closes it
				stopRead()
				c.Close()
				select {
				case <-ctx.Done():
				case <-time.After(rand.N(time.Second)):
				}
			}
		})
	}
	up.Wait()
	return func() {
		cancel()
		wg.Wait()
	}, n
}

// BenchmarkServeHTTPIdleCost: the server's resident memory per idle
// socket (ARBITER_BENCH_IDLE of them, from other addresses than the
// agent's) and per MCP session begun with initialize and never
// initialized (400 of them).
func BenchmarkServeHTTPIdleCost(b *testing.B) {
	n := benchCount("ARBITER_BENCH_IDLE", 2000)
	db, svc := demoField(b)
	ctx := context.Background()
	const sessions = 400
	agents := make([]string, 40)
	for i := range agents {
		id := fmt.Sprintf("idle-%02d", i)
		if _, err := svc.Register(ctx, model.Agent{ID: id, Role: "analyst", Kind: model.KindAgent, Authority: model.AuthorityStandard}); err != nil {
			b.Fatal(err)
		}
		var err error
		if agents[i], _, err = svc.TokenIssue(ctx, "ops-maya", id); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		b.StopTimer()
		srv := serveField(b, db, "--http", "127.0.0.1:0", "--max-mcp", "1000")
		url := "http://" + srv.httpAddr + "/mcp"
		pid := srv.cmd.Process.Pid
		// Warm up: a session of each agent, so that its server (its
		// tools, their schemas) is made before the measures.
		for _, token := range agents {
			mcpOverHTTPB(b, url, token).Session.Close()
		}
		before := rssOf(b, pid)
		stop, opened := idleSockets(b, srv.httpAddr, n)
		if opened == 0 {
			b.Skip("no idle sockets to measure")
		}
		idle := rssOf(b, pid)
		stop()
		// Uninitialized sessions, 10 per agent, 8 at a time: well within
		// the 10 s they are given.
		var wg sync.WaitGroup
		work := make(chan string)
		for range 8 {
			wg.Go(func() {
				for token := range work {
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeLegacy))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Authorization", "Bearer "+token)
					if resp, err := http.DefaultClient.Do(req); err == nil {
						io.Copy(io.Discard, resp.Body) // the answer, after the stream's first event
						resp.Body.Close()
					}
				}
			})
		}
		settled := rssOf(b, pid)
		for i := range sessions {
			work <- agents[i%len(agents)]
		}
		close(work)
		wg.Wait()
		uninit := rssOf(b, pid)
		b.ReportMetric((idle-before)*1024/float64(n), "server-KB/idle-socket")
		b.ReportMetric((uninit-settled)*1024/sessions, "server-KB/uninitialized-session")
		b.ReportMetric(float64(n), "idle-sockets")
		srv.stop()
		b.StartTimer()
	}
}
