package serve

import (
	"log"
	"net/http"
)

// limits is the HTTP server with its timeouts (deadlines.go) around
// handler, its cap on connections fitted to the files the process may
// open: room is left for the field, the SSH side and the log.
func (h *httpServer) limits(handler http.Handler) *http.Server {
	h.maxConns = h.s.opt.MaxConns
	if n := fdLimit(); n > 0 {
		if room := n - 64 - 2*h.s.opt.MaxSSH; room < h.maxConns {
			h.maxConns = max(room, 16)
			h.s.logf("http: at most %d connections at once, to fit the %d files the process may open (raise it with ulimit -n)", h.maxConns, n)
		}
	}
	return &http.Server{
		Handler:           deadlines(handler),
		ReadHeaderTimeout: HeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		// The server's own complaints (a failed accept, a panic), held
		// back in a flood as refusals are.
		ErrorLog: log.New(limitedWriter{h.s.limited, "http errors"}, "", 0),
	}
}

// limitedWriter writes each line to the limited log under one key.
type limitedWriter struct {
	l   *limitedLog
	key string
}

func (w limitedWriter) Write(p []byte) (int, error) {
	w.l.log(w.key, trimNL(string(p)))
	return len(p), nil
}
