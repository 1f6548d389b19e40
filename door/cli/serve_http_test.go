package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgoproto "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP endpoint of `arbiter serve` as a real process, reached over
// real sockets by clients nobody here wrote (mcp-go, the Go SDK's) and by
// hand, for what the protocol says of errors, origins and streams.

// rawMCP sends one request to url with the headers given (Content-Type
// and Accept as a client sends them unless given) and returns the
// response, its body read.
func rawMCP(t *testing.T, method, url string, headers map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initializeLegacy = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// rpcError is the error of a JSON-RPC response, found in a JSON body or
// in the data of a stream's events.
func rpcError(t *testing.T, body string) (code int, id any) {
	t.Helper()
	for _, part := range append([]string{body}, strings.Split(body, "\n")...) {
		part = strings.TrimPrefix(strings.TrimSpace(part), "data: ")
		var m struct {
			ID    any `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(part), &m) == nil && m.Error != nil {
			return m.Error.Code, m.ID
		}
	}
	t.Fatalf("no JSON-RPC error in %q", body)
	return 0, nil
}

// A client that defaults to the protocol of 2026-07-28 (mcp-go 1.2.1; the
// Go SDK's with no version asked) works with no option: server/discover
// is answered -32022 with the versions served, and the client falls back
// to initialize. Before, discover succeeded without 2026-07-28 among its
// versions, and mcp-go got 400 -32022 on every call after it.
func TestServeWorksWithClientsThatDefaultTo20260728(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	url := "http://" + srv.httpAddr + "/mcp"
	ctx := context.Background()

	c, err := mcpgo.NewStreamableHttpClient(url, mcpgotransport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mcpgoproto.InitializeRequest{Params: mcpgoproto.InitializeParams{
		ClientInfo: mcpgoproto.Implementation{Name: "mcp-go", Version: "1.2.1"}}})
	if err != nil {
		t.Fatalf("mcp-go initialize: %v", err)
	}
	t.Logf("mcp-go settled on %s", init.ProtocolVersion)
	tools, err := c.ListTools(ctx, mcpgoproto.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 9 { // conflict, conflicts, detect, inbox, merge, record, search, unit, vote
		t.Fatalf("mcp-go tools/list: %v, %v", tools, err)
	}
	res, err := c.CallTool(ctx, mcpgoproto.CallToolRequest{Params: mcpgoproto.CallToolParams{Name: mcpserver.ToolInbox,
		Arguments: map[string]any{}}})
	if err != nil || res.IsError {
		t.Fatalf("mcp-go inbox: %v %v", res, err)
	}

	// The Go SDK's client with its default version, 2026-07-28.
	sdk := mcptest.Connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(token)}, mcptest.Options{})
	if r := sdk.Call(mcpserver.ToolInbox, map[string]any{}); r.IsError {
		t.Fatalf("the Go SDK's inbox: %s", mcptest.Text(r))
	}
	if v := sdk.Session.InitializeResult().ProtocolVersion; v != mcptest.Legacy {
		t.Errorf("the Go SDK's client settled on %s", v)
	}

	// server/discover by hand: -32022, the versions served, none of 2026.
	resp, body := rawMCP(t, http.MethodPost, url, map[string]string{"Authorization": "Bearer " + token, "Mcp-Protocol-Version": "2026-07-28"},
		`{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if code, _ := rpcError(t, body); resp.StatusCode != http.StatusBadRequest || code != -32022 ||
		strings.Contains(body, `"supported":["2026`) || !strings.Contains(body, "2025-11-25") {
		t.Errorf("server/discover: %s %s", resp.Status, body)
	}
}

// JSON-RPC errors carry the spec's codes: a request without a session
// (other than initialize) is 400 with -32600, not 200 with code 0; an
// unknown method is -32601, not 400 text/plain; a body that is not JSON
// is -32700.
func TestServeAnswersJSONRPCErrorsWithTheSpecsCodes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	url := "http://" + srv.httpAddr + "/mcp"
	auth := map[string]string{"Authorization": "Bearer " + token, "Mcp-Protocol-Version": mcptest.Legacy}

	resp, body := rawMCP(t, http.MethodPost, url, auth, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if code, id := rpcError(t, body); resp.StatusCode != http.StatusBadRequest || code != -32600 || id != float64(3) {
		t.Errorf("tools/list without a session: %s %s", resp.Status, body)
	}
	resp, body = rawMCP(t, http.MethodPost, url, auth, `{"jsonrpc":"2.0","id":1,"method":"initialize"`)
	if code, _ := rpcError(t, body); resp.StatusCode != http.StatusBadRequest || code != -32700 {
		t.Errorf("a body cut short: %s %s", resp.Status, body)
	}

	resp, _ = rawMCP(t, http.MethodPost, url, auth, initializeLegacy)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %s", resp.Status)
	}
	in := map[string]string{"Mcp-Session-Id": session}
	for k, v := range auth {
		in[k] = v
	}
	if resp, _ := rawMCP(t, http.MethodPost, url, in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", resp.Status)
	}
	resp, body = rawMCP(t, http.MethodPost, url, in, `{"jsonrpc":"2.0","id":4,"method":"tools/frobnicate"}`)
	if code, id := rpcError(t, body); resp.StatusCode != http.StatusOK || code != -32601 || id != float64(4) ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("an unknown method: %s %s %s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	resp, body = rawMCP(t, http.MethodPost, url, in, `{"jsonrpc":"2.0","id":5,"method":"prompts/list"}`)
	if code, _ := rpcError(t, body); resp.StatusCode != http.StatusOK || code != -32601 {
		t.Errorf("prompts/list (not declared): %s %s", resp.Status, body)
	}
}

// A request whose Origin is a page of another site is refused, whatever
// its Host says (a DNS rebinding attack sends Host and Origin of the
// attacker's name); the same origin on this machine, an origin given to
// --allow-origin and no Origin at all (agents) are served. Each refusal
// is one line of the log.
func TestServeRefusesForeignOrigins(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	srv := serveField(t, db, "--http", "127.0.0.1:0", "--allow-origin", "https://app.example.com")
	url := "http://" + srv.httpAddr + "/mcp"
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"evil.example.com", "http://evil.example.com", http.StatusForbidden},
		{srv.httpAddr, "http://evil.example.com", http.StatusForbidden},
		{"arbiter.example.com", "https://arbiter.example.com", http.StatusForbidden},
		{srv.httpAddr, "http://" + srv.httpAddr, http.StatusOK},
		{strings.Replace(srv.httpAddr, "127.0.0.1", "localhost", 1), "http://" + strings.Replace(srv.httpAddr, "127.0.0.1", "localhost", 1), http.StatusOK},
		{"arbiter.example.com", "https://app.example.com", http.StatusOK},
		{"arbiter.example.com", "", http.StatusOK},
	} {
		h := map[string]string{"Authorization": "Bearer " + token, "Host": c.host}
		if c.origin != "" {
			h["Origin"] = c.origin
		}
		if resp, body := rawMCP(t, http.MethodPost, url, h, initializeLegacy); resp.StatusCode != c.want {
			t.Errorf("Host %s, Origin %q: %s %s, want %d", c.host, c.origin, resp.Status, body, c.want)
		}
	}
	wantLine(t, "an origin without its scheme", arbiter(t, "--db", db, "serve", "--http", "127.0.0.1:0", "--allow-origin", "app.example.com"),
		2, []string{"--allow-origin", "scheme://host"})
	until(t, "the refusals in the log", func() bool {
		return strings.Count(srv.logText(), `refused POST from 127.0.0.1:`) >= 3 && strings.Contains(srv.logText(), `the origin "http://evil.example.com"`)
	})
}

// sseEvent is one event of a stream.
type sseEvent struct{ id, data, retry string }

// sseStream reads a stream's events as they come.
func sseStream(r io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e != (sseEvent{}) {
					ch <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			case strings.HasPrefix(line, "retry: "):
				e.retry = strings.TrimPrefix(line, "retry: ")
			}
		}
	}()
	return ch
}

// A stream's events carry ids and the stream says when to reconnect
// (retry); a client whose stream dropped reconnects with Last-Event-ID
// and is handed the notice sent while it was away. Before, events had no
// id, no retry was said, and a GET with Last-Event-ID got 400.
func TestServeStreamsResumeWithLastEventID(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	url := "http://" + srv.httpAddr + "/mcp"
	auth := map[string]string{"Authorization": "Bearer " + token, "Mcp-Protocol-Version": mcptest.Legacy}
	resp, body := rawMCP(t, http.MethodPost, url, auth, initializeLegacy)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %s", resp.Status)
	}
	if !strings.Contains(body, "retry: ") || !strings.Contains(body, "\nid: ") {
		t.Errorf("the initialize's stream says no retry or no event id:\n%s", body)
	}
	auth["Mcp-Session-Id"] = session
	rawMCP(t, http.MethodPost, url, auth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp, body := rawMCP(t, http.MethodPost, url, auth, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"arbiter://inbox"}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("subscribe: %s %s", resp.Status, body)
	}
	// A second session of the agent, listening: it hears of each notice
	// when the first one's stream is sent it.
	probe := mcptest.Connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(token)}, mcptest.Options{ProtocolVersion: mcptest.Legacy})
	probe.Subscribe(mcpserver.InboxURI)

	get := func(lastID string) (*http.Response, <-chan sseEvent) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range auth {
			req.Header.Set(k, v)
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Fatalf("GET (Last-Event-ID %q): %s %s", lastID, resp.Status, b)
		}
		return resp, sseStream(resp.Body)
	}
	updated := func(events <-chan sseEvent) sseEvent {
		t.Helper()
		timeout := time.After(mcptest.Wait)
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatal("the stream ended")
				}
				if strings.Contains(e.data, "notifications/resources/updated") {
					return e
				}
			case <-timeout:
				t.Fatal("no resources/updated on the stream")
			}
		}
	}
	stream, events := get("")
	select {
	case first := <-events:
		if first.retry == "" {
			t.Errorf("the GET stream's first event says no retry: %+v", first)
		}
	case <-time.After(mcptest.Wait):
		t.Error("the GET stream says nothing, no retry")
	}
	contradict(t, db, "mem-014")
	probe.WaitUpdated(mcpserver.InboxURI)
	e := updated(events)
	if e.id == "" {
		t.Fatalf("an event without an id: %+v", e)
	}
	stream.Body.Close() // the connection drops

	contradict(t, db, "mem-014")
	probe.WaitUpdated(mcpserver.InboxURI) // sent to the first session's stream while it was away
	again, events := get(e.id)
	defer again.Body.Close()
	if missed := updated(events); missed.id == "" || missed.id == e.id {
		t.Errorf("after Last-Event-ID %s, the event %+v", e.id, missed)
	}
}

// contradict records, as another agent, a unit contradicting unit: a
// notice to its author.
func contradict(t *testing.T, db, unit string) {
	t.Helper()
	payload := `{"type":"finding","content":"not so","intent":{"purpose":"test"},"confidence":{"score":0.5,"reasoning":"r"},` +
		`"relations":[{"type":"contradicts","target_id":"` + unit + `"}]}`
	wantExit(t, call(t, nil, payload, "--db", db, "--as", "data-wren", "record"), 0)
}
