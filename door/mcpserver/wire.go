package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the endpoint answers itself, before the SDK's handler, so that a
// client gets the protocol's codes: a body that is not JSON-RPC is
// -32700, a request without a session other than initialize is 400 with
// -32600, a call of a method no MCP server answers is -32601, and
// server/discover (the protocol of 2026-07-28, which the SDK serves only
// without sessions) is -32022 naming the versions served, so that a
// client asking for it falls back to initialize.

// JSON-RPC error codes.
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeUnsupportedVersion = -32022
)

// modern is the first protocol version without initialize.
const modern = "2026-07-28"

// methods are those the SDK's server answers (or refuses itself, as
// declaredOnly does the capabilities this server does not declare).
var methods = []string{"initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read",
	"resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
	"logging/setLevel", "completion/complete", "server/discover", "subscriptions/listen"}

// readMessages reads the body of a POST and the messages it holds, and
// gives back a body that reads as the original did. A body larger than
// the SDK takes is left whole, without messages, for the SDK to refuse.
func readMessages(r *http.Request) ([]wire, io.ReadCloser, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	rest := readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > mcp.DefaultMaxRequestBodyBytes {
		return nil, rest, nil
	}
	var batch []json.RawMessage
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(body, &batch); err != nil {
			return nil, rest, errors.New("parse error: the body is not JSON")
		}
	} else {
		batch = []json.RawMessage{body}
	}
	msgs := make([]wire, 0, len(batch))
	for _, raw := range batch {
		var m wire
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, rest, errors.New("parse error: the body is not a JSON-RPC message")
		}
		msgs = append(msgs, m)
	}
	return msgs, rest, nil
}

// firstOf is the first request of msgs and what it asks for:
// "initialize", "discover", or "" for anything else.
func firstOf(msgs []wire) (*wire, string) {
	for i := range msgs {
		m := &msgs[i]
		if m.Method == nil {
			continue
		}
		switch *m.Method {
		case "initialize":
			return m, "initialize"
		case "server/discover":
			return m, "discover"
		}
	}
	if len(msgs) > 0 {
		return &msgs[0], ""
	}
	return nil, ""
}

// modernRequested reports whether the request asks for the protocol of
// 2026-07-28 or later: its header, or a call's _meta.
func modernRequested(r *http.Request, msgs []wire) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= modern {
		return true
	}
	for _, m := range msgs {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if m.Method == nil || json.Unmarshal(m.Params, &p) != nil {
			continue
		}
		if v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string); v >= modern {
			return true
		}
	}
	return false
}

// unknownCall is the first call of msgs whose method no MCP server
// answers.
func unknownCall(msgs []wire) (*wire, bool) {
	for i := range msgs {
		m := &msgs[i]
		if m.Method != nil && m.ID != nil && !slices.Contains(methods, *m.Method) {
			return m, true
		}
	}
	return nil, false
}

// versions are the protocol versions served over HTTP, newest first.
func versions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= modern })
}

// unsupportedVersion answers a request for the protocol of 2026-07-28
// with -32022 and the versions served (400, as that protocol says).
func unsupportedVersion(w http.ResponseWriter, r *http.Request, m *wire) {
	requested := r.Header.Get("Mcp-Protocol-Version")
	if requested == "" {
		requested = modern
	}
	var id any
	if m != nil {
		id = m.ID
	}
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: versions(), Requested: requested})
	writeWire(w, http.StatusBadRequest, id, wireError{Code: codeUnsupportedVersion,
		Message: "protocol version " + requested + " is not served over HTTP: begin with initialize", Data: data})
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// writeWireError answers with a JSON-RPC error response to the request
// id (null when unknown).
func writeWireError(w http.ResponseWriter, status int, id any, code int, msg string) {
	writeWire(w, status, id, wireError{Code: code, Message: msg})
}

func writeWire(w http.ResponseWriter, status int, id any, e wireError) {
	body, _ := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id, e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
