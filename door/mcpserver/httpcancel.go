package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Over Streamable HTTP a request the client cancelled gets no response
// either, as on stdio (quietCancel). The SDK's handler makes each
// session's transport itself, so its Connection cannot be wrapped; and it
// must not be: the POST that carried a call ends when the transport
// writes that call's response, so a response held back there would keep
// the POST's stream, and the client waiting on it, open for ever. The
// response is let through the transport and left out of the stream
// instead: the SDK's accounting ends the stream as always, and the bytes
// of a cancelled call's response never reach the socket.
//
// It relies on the handler answering calls in server-sent events (the
// default; JSONResponse is off), and on the event store keeping such a
// response as an empty event (eventStore.Append), so that a client that
// resumes the stream is not handed it either.

// cancels are, by session, the calls in flight on the session's POSTs,
// true once the client cancelled them.
type cancels struct {
	mu       sync.Mutex
	sessions map[string]map[string]bool
}

// note notes the calls and cancellations among msgs, a POST of
// session. It returns the keys of the POST's calls, to forget when the
// POST ends.
func (c *cancels) note(session string, msgs []wire) []string {
	var calls []string
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		id, err := jsonrpc.MakeID(m.ID)
		switch {
		case m.Method == nil || err != nil:
		case id.IsValid():
			// The SDK refuses a call whose id is already in flight: the
			// first keeps its entry.
			if _, dup := c.sessions[session][idKey(id)]; dup {
				continue
			}
			if c.sessions == nil {
				c.sessions = map[string]map[string]bool{}
			}
			if c.sessions[session] == nil {
				c.sessions[session] = map[string]bool{}
			}
			c.sessions[session][idKey(id)] = false
			calls = append(calls, idKey(id))
		case *m.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) != nil {
				continue
			}
			id, err := jsonrpc.MakeID(p.RequestID)
			if err != nil {
				continue
			}
			if _, ok := c.sessions[session][idKey(id)]; ok {
				c.sessions[session][idKey(id)] = true
			}
		}
	}
	return calls
}

// forget drops the calls of a POST that ended.
func (c *cancels) forget(session string, calls []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range calls {
		delete(c.sessions[session], k)
	}
	if len(c.sessions[session]) == 0 {
		delete(c.sessions, session)
	}
}

// cancelled reports whether the client cancelled the call of session
// whose key is k.
func (c *cancels) cancelled(session, k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[session][k]
}

// anyCancelled reports whether the client cancelled any of calls.
func (c *cancels) anyCancelled(session string, calls []string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range calls {
		if c.sessions[session][k] {
			return true
		}
	}
	return false
}

// wire is what a JSON-RPC message says of itself: its method if it is a
// request, its id if it is a call or a response. It is read with the
// standard library: the SDK's own decoding takes a 64 KiB buffer a
// message.
type wire struct {
	ID     any             `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
}

type readCloser struct {
	io.Reader
	io.Closer
}

// quietWriter is the stream of a POST that carried calls: it leaves out
// the responses to those the client cancelled. Events are passed on
// whole, so one written in pieces is held until its end.
type quietWriter struct {
	http.ResponseWriter
	c       *cancels
	session string
	calls   []string
	held    []byte
}

func (w *quietWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *quietWriter) Write(p []byte) (int, error) {
	if w.Header().Get("Content-Type") != "text/event-stream" {
		return w.ResponseWriter.Write(p)
	}
	data := p
	if len(w.held) > 0 {
		data = append(w.held, p...)
		w.held = nil
	}
	for {
		i := bytes.Index(data, []byte("\n\n"))
		if i < 0 {
			break
		}
		event := data[:i+2]
		data = data[i+2:]
		if w.dropped(event) {
			continue
		}
		if _, err := w.ResponseWriter.Write(event); err != nil {
			return len(p), err
		}
	}
	if len(data) > 0 {
		w.held = append([]byte(nil), data...)
	}
	return len(p), nil
}

// finish passes on what is held of an event never ended.
func (w *quietWriter) finish() {
	if len(w.held) > 0 {
		w.ResponseWriter.Write(w.held)
		w.held = nil
	}
}

// dropped reports whether event is the response to a cancelled call.
func (w *quietWriter) dropped(event []byte) bool {
	if !w.c.anyCancelled(w.session, w.calls) {
		return false
	}
	for line := range bytes.SplitSeq(event, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var m wire
		if json.Unmarshal(data, &m) != nil || m.Method != nil {
			return false
		}
		id, err := jsonrpc.MakeID(m.ID)
		if err != nil || !id.IsValid() {
			return false
		}
		return w.c.cancelled(w.session, idKey(id))
	}
	return false
}
