// Package mcptest drives arbiter's MCP server in tests with the SDK's own
// client, as an agent's MCP client would: over an in-memory transport to a
// server in the test process (Serve), or over stdio to `arbiter mcp` in a
// subprocess (Connect with a CommandTransport).
//
// The client validates, as common clients do, the structured content of
// every tool result against the output schema the tool declared — refusals
// (isError) included — and fails the test when it does not match.
package mcptest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Wait is how long a test waits for a notification before failing: far
// beyond the second the server promises, so that a busy machine does not
// fail a test; the benchmarks measure the latency.
const Wait = testwait.Deadline

// Legacy is the protocol version of today's common clients, which
// subscribe with resources/subscribe; "" (the SDK's latest) subscribes
// with a subscriptions/listen stream.
const Legacy = "2025-11-25"

// Client is one agent's MCP client session.
type Client struct {
	t       testing.TB
	Session *mcp.ClientSession
	// schemas are the tools' output schemas, resolved.
	schemas map[string]*jsonschema.Resolved

	mu       sync.Mutex
	arrived  chan struct{} // signalled on every notification below
	updated  map[string]int
	consumed map[string]int
	acked    []string // URIs the server acknowledged (subscriptions/listen)
}

// Options tune a client or a server started by Serve.
type Options struct {
	// ProtocolVersion the client asks for ("" for the SDK's latest).
	ProtocolVersion string
	// ReadOnly opens the server's field read-only; DecisionsOut then takes
	// its decisions.
	ReadOnly     bool
	DecisionsOut string
	// Poll is the server's polling interval (default the server's).
	Poll time.Duration
}

// Serve starts a server for agent on the field at path, with a store of its
// own (as another process would have), connects a client to it in memory
// and stops both when the test ends, failing it if the server does not
// stop once the client hangs up.
func Serve(t testing.TB, path, agent string, opts Options) *Client {
	t.Helper()
	ctx := context.Background()
	st, err := field.Open(ctx, path, store.Options{ReadOnly: opts.ReadOnly})
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(path), err)
	}
	svc := review.New(st).WithDecisionsOut(opts.DecisionsOut)
	srv, err := mcpserver.New(ctx, svc, agent, mcpserver.Options{Poll: opts.Poll})
	if err != nil {
		st.Close()
		t.Fatalf("mcpserver.New(%s): %v", agent, err)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Run(ctx, serverT) }()
	c := Connect(t, clientT, opts)
	t.Cleanup(func() {
		c.Session.Close()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("server for %s: %v", agent, err)
			}
		case <-time.After(Wait):
			t.Errorf("the server for %s did not stop after the client hung up", agent)
		}
		st.Close()
	})
	return c
}

// Connect connects a client over transport and reads the tools' output
// schemas. The session is closed when the test ends.
func Connect(t testing.TB, transport mcp.Transport, opts Options) *Client {
	t.Helper()
	c := &Client{t: t, arrived: make(chan struct{}, 1), updated: map[string]int{}, consumed: map[string]int{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "v0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.note(func() { c.updated[req.Params.URI]++ })
		},
	})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok {
				c.note(func() { c.acked = append(c.acked, p.Notifications.ResourceSubscriptions...) })
			}
			return next(ctx, method, req)
		}
	})
	cs, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: opts.ProtocolVersion})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	c.Session = cs
	t.Cleanup(func() { cs.Close() })
	c.schemas = map[string]*jsonschema.Resolved{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		if tool.OutputSchema == nil {
			continue
		}
		c.schemas[tool.Name] = Resolve(t, tool.OutputSchema)
	}
	return c
}

// Resolve turns a schema as a client receives it into one it can validate
// with.
func Resolve(t testing.TB, schema any) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema %s: %v", b, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve schema: %v", err)
	}
	return r
}

// Validate checks structured content against a resolved schema as a
// client would: the JSON value, not a Go value.
func Validate(schema *jsonschema.Resolved, structured any) error {
	b, err := json.Marshal(structured)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return schema.Validate(v)
}

func (c *Client) note(fn func()) {
	c.mu.Lock()
	fn()
	c.mu.Unlock()
	select {
	case c.arrived <- struct{}{}:
	default:
	}
}

// Call calls a tool and validates its structured content, if any, against
// the tool's output schema, whether or not the result is an error.
func (c *Client) Call(name string, args any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("call %s: %v", name, err)
	}
	if res.StructuredContent != nil {
		schema := c.schemas[name]
		if schema == nil {
			c.t.Fatalf("%s returned structured content but declares no output schema", name)
		}
		if err := Validate(schema, res.StructuredContent); err != nil {
			c.t.Fatalf("%s (isError %v): structured content does not match the output schema: %v\n%s",
				name, res.IsError, err, mustJSON(res.StructuredContent))
		}
	}
	return res
}

// Schema is a tool's resolved output schema.
func (c *Client) Schema(tool string) *jsonschema.Resolved { return c.schemas[tool] }

// Result calls a tool that must succeed and decodes its structured content.
func Result[T any](c *Client, name string, args any) T {
	c.t.Helper()
	res := c.Call(name, args)
	if res.IsError {
		c.t.Fatalf("%s refused: %s", name, Text(res))
	}
	var out T
	if err := json.Unmarshal(mustJSON(res.StructuredContent), &out); err != nil {
		c.t.Fatalf("%s: decode %s: %v", name, mustJSON(res.StructuredContent), err)
	}
	return out
}

// Refusal calls a tool that must refuse and returns the protocol's error
// object from its structured content.
func Refusal(c *Client, name string, args any) model.Error {
	c.t.Helper()
	res := c.Call(name, args)
	if !res.IsError {
		c.t.Fatalf("%s succeeded, want a refusal: %s", name, Text(res))
	}
	var e model.Error
	if err := json.Unmarshal(mustJSON(res.StructuredContent), &e); err != nil || e.Code == "" {
		c.t.Fatalf("%s: structured content is not an error object: %s", name, mustJSON(res.StructuredContent))
	}
	return e
}

// Text is a result's first text block: its summary.
func Text(res *mcp.CallToolResult) string {
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// Read reads a JSON resource into v.
func (c *Client) Read(uri string, v any) {
	c.t.Helper()
	res, err := c.Session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		c.t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		c.t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), v); err != nil {
		c.t.Fatalf("read %s: %v\n%s", uri, err, res.Contents[0].Text)
	}
}

// Subscribe subscribes to uri and returns once the server holds the
// subscription (on a subscriptions/listen stream, once it acknowledged it).
func (c *Client) Subscribe(uri string) {
	c.t.Helper()
	if err := c.Session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		c.t.Fatalf("subscribe %s: %v", uri, err)
	}
	if c.Session.InitializeResult().ProtocolVersion <= Legacy {
		return // resources/subscribe answered after the server took it
	}
	c.waitFor("the acknowledgement of the subscription to "+uri, func() bool { return slices.Contains(c.acked, uri) })
}

// WaitUpdated waits for the next notifications/resources/updated for uri
// not yet waited for.
func (c *Client) WaitUpdated(uri string) {
	c.t.Helper()
	c.waitFor("notifications/resources/updated for "+uri, func() bool {
		if c.updated[uri] > c.consumed[uri] {
			c.consumed[uri]++
			return true
		}
		return false
	})
}

// Unwaited is how many updates for uri arrived that no WaitUpdated took.
func (c *Client) Unwaited(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updated[uri] - c.consumed[uri]
}

func (c *Client) waitFor(what string, done func() bool) {
	c.t.Helper()
	deadline := time.After(Wait)
	for {
		c.mu.Lock()
		ok := done()
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.arrived:
		case <-deadline:
			c.t.Fatalf("no %s within %s", what, Wait)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
