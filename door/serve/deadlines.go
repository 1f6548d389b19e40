package serve

import (
	"io"
	"net/http"
	"time"
)

// The HTTP side's timeouts. A request has HeaderTimeout for its headers
// and ReadTimeout for all of it, body included; a stream it opens (an
// agent's notices, a long call) then runs without a read deadline, each
// write of it bounded by WriteTimeout, so that a client that stops reading
// does not hold its writer. A connection with no request for IdleTimeout
// is closed.
const (
	HeaderTimeout = 10 * time.Second
	ReadTimeout   = 30 * time.Second
	WriteTimeout  = 30 * time.Second
	IdleTimeout   = 60 * time.Second
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 64 << 10
)

// deadlines lifts a request's read deadline once its body is read, and
// bounds each write of its answer by WriteTimeout.
func deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body == nil || r.Body == http.NoBody {
			rc.SetReadDeadline(time.Time{})
		} else {
			r.Body = &liftAtEOF{ReadCloser: r.Body, rc: rc}
		}
		next.ServeHTTP(&boundedWriter{ResponseWriter: w, rc: rc}, r)
		// The answer's end (a stream's last chunk) gets its time too,
		// however long the stream was quiet before it.
		rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	})
}

// liftAtEOF lifts the read deadline once the body has been read whole.
type liftAtEOF struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (b *liftAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// boundedWriter gives each write WriteTimeout to reach the client.
type boundedWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w *boundedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	return w.ResponseWriter.Write(p)
}

func (w *boundedWriter) FlushError() error {
	w.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	return w.rc.Flush()
}
