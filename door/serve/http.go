package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"arbiter/door/mcpserver"
)

// httpServer is the agents' side: MCP at /mcp, and /healthz.
type httpServer struct {
	s   *server
	mcp *mcpserver.HTTP
	srv *http.Server
	// maxConns is the cap on connections, fitted to the open files
	// allowed (limits.go).
	maxConns int
	// posts counts requests that may write (POST /mcp) in flight.
	posts atomic.Int64
	// sick is whether /healthz last answered 503.
	sick atomic.Bool
}

func (s *server) newHTTP() *httpServer {
	h := &httpServer{s: s}
	h.mcp = mcpserver.NewHTTP(s.svc, mcpserver.HTTPOptions{
		Options:     mcpserver.Options{Poll: s.opt.Poll, Notices: logWriter{s}},
		MaxSessions: s.opt.MaxMCP, MaxPerAgent: s.opt.MaxMCPPerAgent, IdleTimeout: s.opt.IdleTimeout,
		AllowOrigins: s.opt.AllowOrigins, Listen: s.opt.HTTPAddr, Changes: s.changes, Log: s.limited.log,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h.counted(h.mcp))
	mux.HandleFunc("GET /healthz", h.health)
	h.srv = h.limits(mux)
	return h
}

// counted counts the POSTs in flight through next.
func (h *httpServer) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			h.posts.Add(1)
			defer h.posts.Add(-1)
		}
		next.ServeHTTP(w, r)
	})
}

// health answers 200 when the field can be read and written where it
// was opened, 503 when it cannot (review's Check: a real read; a file
// deleted or replaced, a disk turned read-only or full, a server down or
// in recovery). The reason goes to the log when health changes, never
// to the caller.
func (h *httpServer) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	err := h.s.svc.Check(ctx)
	if was := h.sick.Swap(err != nil); was != (err != nil) {
		if err != nil {
			h.s.logf("healthz: 503: %v", err)
		} else {
			h.s.logf("healthz: 200 again: the field answers")
		}
	}
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("the field cannot be read or written\n"))
		return
	}
	w.Write([]byte("ok\n"))
}

func (h *httpServer) serve(l net.Listener) {
	l = capListener(l, h.maxConns, h.s.opt.MaxConnsPerAddr, func(addr, why string) {
		h.s.limited.log("refused conns", fmt.Sprintf("http: refused a connection from %s: %s", addr, why))
	})
	if err := h.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		h.s.logf("http: %v", err)
	}
}

// shutdown stops accepting, lets the requests in flight finish (until
// ctx ends), ends the MCP sessions and closes what is left.
func (h *httpServer) shutdown(ctx context.Context) {
	done := make(chan error, 1)
	go func() { done <- h.srv.Shutdown(ctx) }()
	for h.posts.Load() > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	h.mcp.Close()
	if err := <-done; err != nil {
		h.srv.Close()
	}
}

// logWriter writes an MCP server's notices to the log, a line each.
type logWriter struct{ s *server }

func (l logWriter) Write(p []byte) (int, error) {
	l.s.logf("%s", trimNL(string(p)))
	return len(p), nil
}

func trimNL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
