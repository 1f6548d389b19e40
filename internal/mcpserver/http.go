package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"arbiter/review"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions tune the field served over MCP's Streamable HTTP.
type HTTPOptions struct {
	// Options are each agent's server's. Deadlines are not swept per
	// session: the process serving HTTP sweeps them once for all.
	Options
	// MaxSessions caps the sessions open at once (default 500); a new
	// session beyond it gets 503.
	MaxSessions int
	// IdleTimeout closes a session that made no request for that long
	// and has no stream open (default 30 minutes): an agent listening
	// for its notices on a stream is not idle.
	IdleTimeout time.Duration
	// RevokeCheck is how often open sessions are checked against the
	// field's tokens, so that a revoked token's open stream ends too
	// (default 1s); every request is checked as it comes.
	RevokeCheck time.Duration
}

// HTTP serves the field to agents over Streamable HTTP: each request
// carries a bearer token the field issued (`arbiter tokens issue`), and
// the token is the identity: every tool acts as its agent. One server per
// agent holds that agent's sessions and watches the field while any is
// open.
type HTTP struct {
	svc     *review.Service
	opts    HTTPOptions
	ctx     context.Context
	cancel  context.CancelFunc
	handler http.Handler
	hub     *hub
	cancels cancels

	mu       sync.Mutex
	servers  map[string]*Server             // by agent id
	sessions map[*mcp.ServerSession]session // open sessions
	activity map[string]*activity           // by session id
	closed   bool
	wg       sync.WaitGroup
}

// activity is a session's use: its requests in flight (a stream is one
// until it ends) and when the last one ended.
type activity struct {
	open int
	last time.Time
}

type session struct {
	agent string
	hash  string // of the token it began with
}

type agentKey struct{}

// NewHTTP returns the handler of the MCP endpoint. Close ends its
// sessions.
func NewHTTP(svc *review.Service, opts HTTPOptions) *HTTP {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 500
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 30 * time.Minute
	}
	if opts.RevokeCheck <= 0 {
		opts.RevokeCheck = time.Second
	}
	opts.Sweep = -1
	if opts.Poll <= 0 {
		opts.Poll = 100 * time.Millisecond
	}
	if opts.Notices == nil {
		opts.Notices = io.Discard
	}
	h := &HTTP{svc: svc, opts: opts, servers: map[string]*Server{}, sessions: map[*mcp.ServerSession]session{},
		activity: map[string]*activity{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	// The SDK's guard against DNS rebinding refuses a request that came
	// to a loopback address under another host name: exactly what a TLS
	// proxy in front of 127.0.0.1 sends. It protects servers a browser
	// could reach without credentials; every request here needs a token
	// the browser does not have.
	// Idle sessions are closed here (closeIdle), not by the SDK, whose
	// timeout does not count a stream the client listens on.
	sdk := mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
	// The SDK ties each session to the user of the token it began with.
	h.handler = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		a, _ := ctx.Value(agentKey{}).(session)
		return &auth.TokenInfo{UserID: a.agent, Extra: map[string]any{"hash": a.hash}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(sdk)
	h.hub = newHub(svc, opts.Poll)
	h.wg.Go(func() { h.hub.run(h.ctx) })
	h.wg.Go(h.watchRevoked)
	return h
}

// ServeHTTP checks the request's bearer token, then serves it.
func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token, ok := bearer(r)
	if !ok {
		unauthorized(w, "no bearer token: give the token `arbiter tokens issue` printed, as Authorization: Bearer TOKEN")
		return
	}
	a, ok, err := h.svc.TokenAgent(r.Context(), token)
	if err != nil {
		http.Error(w, "the field does not answer", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		unauthorized(w, "the token is not one the field holds (revoked, or never issued)")
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && h.full() {
		w.Header().Set("Retry-After", "10")
		http.Error(w, "too many sessions open: try again later", http.StatusServiceUnavailable)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), agentKey{}, session{agent: a.ID, hash: review.TokenHash(token)}))
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h.busy(id, 1)
		defer h.busy(id, -1)
		if r.Method == http.MethodPost {
			var calls []string
			if r, calls = h.cancels.read(r, id); len(calls) > 0 {
				defer h.cancels.forget(id, calls)
				qw := &quietWriter{ResponseWriter: w, c: &h.cancels, session: id, calls: calls}
				defer qw.finish()
				w = qw
			}
		}
	}
	h.handler.ServeHTTP(w, r)
}

// busy counts a request of session id starting (+1) or ending (-1).
func (h *HTTP) busy(id string, d int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.activity[id]
	if a == nil {
		a = &activity{}
		h.activity[id] = a
	}
	a.open += d
	a.last = time.Now()
}

func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

func unauthorized(w http.ResponseWriter, why string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="arbiter", error="invalid_token"`)
	http.Error(w, why, http.StatusUnauthorized)
}

func (h *HTTP) full() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed || len(h.sessions) >= h.opts.MaxSessions
}

// server is the agent's server, made the first time it is asked for.
func (h *HTTP) server(r *http.Request) *mcp.Server {
	a, _ := r.Context().Value(agentKey{}).(session)
	if a.agent == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.servers[a.agent]; s != nil {
		return s.mcp
	}
	s, err := New(r.Context(), h.svc, a.agent, h.opts.Options)
	if err != nil {
		fmt.Fprintf(h.opts.Notices, "arbiter: mcp: serving %s: %v\n", q(a.agent), err)
		return nil
	}
	s.follow = h.follow(s)
	s.changes = h.hub.waiter()
	h.servers[a.agent] = s
	return s.mcp
}

// follow returns what s does when a session of its agent begins: count
// it, watch the field for the agent while any session is open.
func (h *HTTP) follow(s *Server) func(context.Context, *mcp.ServerSession) {
	var (
		mu     sync.Mutex
		open   int
		cancel context.CancelFunc
	)
	return func(ctx context.Context, ss *mcp.ServerSession) {
		var sess session
		if ti := auth.TokenInfoFromContext(ctx); ti != nil {
			sess.agent = ti.UserID
			sess.hash, _ = ti.Extra["hash"].(string)
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			ss.Close()
			return
		}
		h.sessions[ss] = sess
		h.mu.Unlock()
		mu.Lock()
		if open++; open == 1 {
			var wctx context.Context
			wctx, cancel = context.WithCancel(h.ctx)
			h.wg.Go(func() { s.watch(wctx) })
		}
		mu.Unlock()
		h.wg.Go(func() {
			ss.Wait()
			h.mu.Lock()
			delete(h.sessions, ss)
			delete(h.activity, ss.ID())
			h.mu.Unlock()
			mu.Lock()
			if open--; open == 0 {
				cancel()
			}
			mu.Unlock()
		})
	}
}

// watchRevoked ends the open sessions whose token the field no longer
// holds, every opts.RevokeCheck.
func (h *HTTP) watchRevoked() {
	t := time.NewTicker(h.opts.RevokeCheck)
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
		}
		h.closeIdle()
		h.mu.Lock()
		n := len(h.sessions)
		h.mu.Unlock()
		if n == 0 {
			continue
		}
		toks, err := h.svc.Tokens(h.ctx)
		if err != nil {
			continue
		}
		held := map[string]bool{}
		for _, k := range toks {
			held[k.Hash] = true
		}
		var gone []*mcp.ServerSession
		h.mu.Lock()
		for ss, sess := range h.sessions {
			if !held[sess.hash] {
				gone = append(gone, ss)
			}
		}
		h.mu.Unlock()
		for _, ss := range gone {
			ss.Close()
		}
	}
}

// closeIdle ends the sessions with nothing in flight and no request for
// opts.IdleTimeout.
func (h *HTTP) closeIdle() {
	var idle []*mcp.ServerSession
	h.mu.Lock()
	open := make(map[string]bool, len(h.sessions))
	for ss := range h.sessions {
		open[ss.ID()] = true
		if a := h.activity[ss.ID()]; a != nil && a.open <= 0 && time.Since(a.last) > h.opts.IdleTimeout {
			idle = append(idle, ss)
		}
	}
	// Requests naming no open session leave nothing behind.
	for id, a := range h.activity {
		if !open[id] && a.open <= 0 && time.Since(a.last) > time.Minute {
			delete(h.activity, id)
		}
	}
	h.mu.Unlock()
	for _, ss := range idle {
		ss.Close()
	}
}

// Sessions is how many sessions are open.
func (h *HTTP) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// Close refuses new sessions, ends the open ones and waits for all the
// handler started.
func (h *HTTP) Close() {
	h.mu.Lock()
	h.closed = true
	open := make([]*mcp.ServerSession, 0, len(h.sessions))
	for ss := range h.sessions {
		open = append(open, ss)
	}
	h.mu.Unlock()
	for _, ss := range open {
		ss.Close()
	}
	h.cancel()
	h.wg.Wait()
}
