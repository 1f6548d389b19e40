package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// undeclared are the methods of capabilities the server does not declare
// (prompts, logging, completions): they are refused as unknown methods,
// as a client that never read the capabilities should learn, rather than
// answered with empty results.
var undeclared = map[string]bool{
	"prompts/list":        true,
	"prompts/get":         true,
	"logging/setLevel":    true,
	"completion/complete": true,
}

// declaredOnly refuses the methods of undeclared capabilities.
func declaredOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if undeclared[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s (not a capability of this server)", method)}
		}
		return next(ctx, method, req)
	}
}

// quietCancel is a transport on which a request the client cancelled
// (notifications/cancelled) gets no response, as MCP asks: the SDK stops
// the request's work but still writes what it returned.
type quietCancel struct{ mcp.Transport }

func (t quietCancel) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &quietConn{Connection: c, inFlight: map[string]bool{}}, nil
}

type quietConn struct {
	mcp.Connection
	mu sync.Mutex
	// inFlight are the requests read and not yet answered, true once
	// cancelled.
	inFlight map[string]bool
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (c *quietConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.IsCall():
		c.inFlight[idKey(req.ID)] = false
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				if _, ok := c.inFlight[idKey(id)]; ok {
					c.inFlight[idKey(id)] = true
				}
			}
		}
	}
	return msg, nil
}

func (c *quietConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		key := idKey(resp.ID)
		cancelled := c.inFlight[key]
		delete(c.inFlight, key)
		c.mu.Unlock()
		if cancelled {
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}
