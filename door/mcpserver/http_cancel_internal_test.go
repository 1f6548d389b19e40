package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/service/review"
	"arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over HTTP too, a call the client cancelled gets no response: its POST's
// stream ends without one, the session's next call is answered, and
// nothing the cancelled call started is left running.
func TestHTTPACancelledRequestGetsNoResponse(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	st, err := field.Open(context.Background(), f.Path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHTTP(review.New(st), HTTPOptions{Options: Options{Poll: 20 * time.Millisecond}})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		st.Close()
	})
	agent := reviewtest.Senior2
	token, _, err := f.Svc.TokenIssue(context.Background(), reviewtest.Operator, agent)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	send := func(session, body string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		return client.Do(req)
	}
	post := func(session, body string) *http.Response {
		t.Helper()
		resp, err := send(session, body)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// responses reads a POST's stream to its end: the ids of the
	// responses on it.
	read := func(resp *http.Response) ([]string, error) {
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("reading a POST's stream: %v", err)
		}
		var ids []string
		for event := range bytes.SplitSeq(body, []byte("\n\n")) {
			for line := range bytes.SplitSeq(event, []byte("\n")) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(data) > 0 {
					m, err := jsonrpc.DecodeMessage(data)
					if err != nil {
						return nil, fmt.Errorf("the stream holds %q: %v", data, err)
					}
					if r, ok := m.(*jsonrpc.Response); ok {
						ids = append(ids, idKey(r.ID))
					}
				}
			}
		}
		return ids, nil
	}
	responses := func(resp *http.Response) []string {
		t.Helper()
		ids, err := read(resp)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}

	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if ids := responses(resp); session == "" || len(ids) != 1 {
		t.Fatalf("initialize: session %q, responses %v", session, ids)
	}
	if resp := post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", resp.Status)
	}

	// A tool that holds until its call is cancelled: the slow path.
	started := make(chan struct{}, 1)
	h.mu.Lock()
	s := h.servers[agent]
	h.mu.Unlock()
	s.mcp.AddTool(&mcp.Tool{Name: "hold", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	client.CloseIdleConnections()
	before := runtime.NumGoroutine()

	// The stream's headers come with its first event: the call is sent
	// and read aside.
	type outcome struct {
		ids []string
		err error
	}
	held := make(chan outcome, 1)
	go func() {
		call, err := send(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
		if err != nil {
			held <- outcome{err: err}
			return
		}
		if ct := call.Header.Get("Content-Type"); call.StatusCode != http.StatusOK || ct != "text/event-stream" {
			call.Body.Close()
			held <- outcome{err: fmt.Errorf("the call: %s, %s", call.Status, ct)}
			return
		}
		ids, err := read(call)
		held <- outcome{ids, err}
	}()
	<-started
	if resp := post(session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"not needed"}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancelled: %s", resp.Status)
	}
	if o := <-held; o.err != nil || len(o.ids) != 0 {
		t.Fatalf("the cancelled call's stream ended with responses %v (%v), want none", o.ids, o.err)
	}

	three, _ := jsonrpc.MakeID(float64(3))
	next := post(session, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`)
	if ids := responses(next); len(ids) != 1 || ids[0] != idKey(three) {
		t.Fatalf("the next call got responses %v, want the one to 3", ids)
	}
	h.cancels.mu.Lock()
	left := len(h.cancels.sessions)
	h.cancels.mu.Unlock()
	if left != 0 {
		t.Fatalf("calls still noted after their POSTs ended: %d sessions", left)
	}

	client.CloseIdleConnections()
	now := runtime.NumGoroutine()
	testwait.Until(testwait.Deadline, func() bool { now = runtime.NumGoroutine(); return now <= before })
	if now > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before the cancelled call, %d after:\n%s", before, now, buf[:runtime.Stack(buf, true)])
	}
}

// The stream of a POST leaves out the response to its cancelled call
// however the event is cut into writes, and passes everything else on
// whole and in order.
func TestQuietWriterDropsOnlyTheCancelledResponse(t *testing.T) {
	one, _ := jsonrpc.MakeID(float64(1))
	two, _ := jsonrpc.MakeID(float64(2))
	c := &cancels{sessions: map[string]map[string]bool{"s": {idKey(one): true, idKey(two): false}}}
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "text/event-stream")
	w := &quietWriter{ResponseWriter: rec, c: c, session: "s", calls: []string{idKey(one), idKey(two)}}
	progress := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n"
	cancelled := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32800,\"message\":\"cancelled\"}}\n\n"
	answered := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"
	all := progress + cancelled + answered
	for _, cut := range []int{len(progress) + 7, len(progress) + len(cancelled) + 3, len(all) - 1} {
		rec.Body.Reset()
		w.Write([]byte(all[:cut]))
		w.Write([]byte(all[cut:]))
		w.finish()
		if got := rec.Body.String(); got != progress+answered {
			t.Fatalf("cut at %d, the stream holds:\n%s", cut, got)
		}
	}
}

// BenchmarkCancelNotes is what noting a POST's calls and passing its
// response through the stream's filter cost a `record` call over HTTP.
func BenchmarkCancelNotes(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"record","arguments":{"type":"finding","content":"p99 is 180 ms in production","intent":{"purpose":"a benchmark"},"confidence":{"score":0.7,"reasoning":"measured"}}}}`
	event := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"recorded u-1\"}],\"structuredContent\":{\"unit_id\":\"u-1\"}}}\n\n")
	var c cancels
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "text/event-stream")
	for _, noted := range []bool{false, true} {
		b.Run(map[bool]string{false: "bare", true: "noted"}[noted], func(b *testing.B) {
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				var w http.ResponseWriter = rec
				var calls []string
				if noted {
					msgs, body, err := readMessages(r)
					if err != nil {
						b.Fatal(err)
					}
					r.Body = body
					calls = c.note("s", msgs)
					w = &quietWriter{ResponseWriter: rec, c: &c, session: "s", calls: calls}
				}
				io.Copy(io.Discard, r.Body)
				w.Write(event)
				if noted {
					w.(*quietWriter).finish()
					c.forget("s", calls)
				}
				rec.Body.Reset()
			}
		})
	}
}
