package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resumable streams: every event of a session's streams is numbered and
// kept (the SDK's memory store, at most EventStoreBytes for all sessions,
// the oldest dropped first), so that a client whose stream dropped
// reconnects with Last-Event-ID and is handed what it missed; each stream
// says in its first event how long to wait before reconnecting (retry).

// RetryMillis is the wait a stream asks of a client before it reconnects.
const RetryMillis = 1000

// EventStoreBytes bounds the events kept for resuming, all sessions
// together.
const EventStoreBytes = 10 << 20

// retryWriter begins a stream of server-sent events with its retry field.
type retryWriter struct {
	http.ResponseWriter
	started bool
}

func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *retryWriter) Write(p []byte) (int, error) {
	if !w.started {
		w.started = true
		if w.Header().Get("Content-Type") == "text/event-stream" {
			// A field line at the start of the stream's first block: the
			// event it belongs to (the priming one, or the first message)
			// is unchanged.
			if _, err := w.ResponseWriter.Write([]byte("retry: " + strconv.Itoa(RetryMillis) + "\n")); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

// eventStore keeps the events of the sessions' streams for resuming. A
// response to a call the client cancelled is kept empty, as the stream
// left it out (quietWriter), so that a client that resumes is not handed
// it either; its number stays, so that those of the events after it do.
type eventStore struct {
	*mcp.MemoryEventStore
	c *cancels
}

func newEventStore(c *cancels) *eventStore {
	s := &eventStore{MemoryEventStore: mcp.NewMemoryEventStore(nil), c: c}
	s.SetMaxBytes(EventStoreBytes)
	return s
}

func (s *eventStore) Append(ctx context.Context, session, stream string, data []byte) error {
	if s.cancelledResponse(session, data) {
		data = nil
	}
	return s.MemoryEventStore.Append(ctx, session, stream, data)
}

func (s *eventStore) cancelledResponse(session string, data []byte) bool {
	if len(data) == 0 {
		return false
	}
	var m wire
	if json.Unmarshal(data, &m) != nil || m.Method != nil {
		return false
	}
	id, err := jsonrpc.MakeID(m.ID)
	return err == nil && id.IsValid() && s.c.cancelled(session, idKey(id))
}

var _ mcp.EventStore = (*eventStore)(nil)

// adoptWriter calls adopt once, with the session id the answer carries
// ("" if none), as the answer's header goes out.
type adoptWriter struct {
	http.ResponseWriter
	adopt func(id string)
	done  bool
}

func (w *adoptWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *adoptWriter) once(id string) {
	if !w.done {
		w.done = true
		w.adopt(id)
	}
}

func (w *adoptWriter) WriteHeader(code int) {
	w.once(w.Header().Get("Mcp-Session-Id"))
	w.ResponseWriter.WriteHeader(code)
}

func (w *adoptWriter) Write(p []byte) (int, error) {
	w.once(w.Header().Get("Mcp-Session-Id"))
	return w.ResponseWriter.Write(p)
}

func (w *adoptWriter) FlushError() error {
	w.once(w.Header().Get("Mcp-Session-Id"))
	return http.NewResponseController(w.ResponseWriter).Flush()
}
