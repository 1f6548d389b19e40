package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"arbiter/internal/broadcast"
	"arbiter/service/review"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions tune the field served over MCP's Streamable HTTP.
type HTTPOptions struct {
	// Options are each agent's server's. Deadlines are not swept per
	// session: the process serving HTTP sweeps them once for all.
	Options
	// MaxSessions caps the sessions open at once (default 500), and
	// MaxPerAgent those of one agent (default 10). A session counts from
	// its initialize, initialized or not; one more gets 503.
	MaxSessions, MaxPerAgent int
	// IdleTimeout closes a session that made no request for that long
	// and has no stream open (default 30 minutes): an agent listening
	// for its notices on a stream is not idle.
	IdleTimeout time.Duration
	// InitTimeout closes a session that has not sent
	// notifications/initialized that long after its initialize (default
	// 10s).
	InitTimeout time.Duration
	// RevokeCheck is how often open sessions are checked against the
	// field's tokens besides at each change of the field, so that a
	// revoked token's sessions end too (default 1s); every request is
	// checked as it comes.
	RevokeCheck time.Duration
	// AllowOrigins are the origins ("https://app.example.com") whose
	// pages may call the endpoint, besides the same origin on this
	// machine (an Origin naming the request's Host, when that is
	// localhost, a loopback address or Listen). A request without Origin,
	// as agents send, is not a browser's and is let through to the token
	// check.
	AllowOrigins []string
	// Listen is the address the endpoint listens on, for the same-origin
	// rule.
	Listen string
	// Changes, when set, is the process's one watch of the field; without
	// it the handler watches the field itself.
	Changes *broadcast.Changes
	// Log, when set, gets one line per session opened or closed and per
	// refusal, with a key naming its kind so that a flood of one kind can
	// be held back. Never a token.
	Log func(key, line string)
}

// Defaults of HTTPOptions.
const (
	DefaultMaxSessions = 500
	DefaultMaxPerAgent = 10
	DefaultInitTimeout = 10 * time.Second
)

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
	changes *broadcast.Changes
	cancels cancels
	events  *eventStore

	mu       sync.Mutex
	servers  map[string]*Server   // by agent id
	sessions map[string]*tracked  // by session id
	agents   map[string]int       // sessions and reservations by agent
	pending  int                  // reservations: initializes in flight
	early    map[string]time.Time // sessions initialized before they were tracked
	closed   bool
	wg       sync.WaitGroup
}

type session struct {
	agent string
	hash  string // of the token it began with
	addr  string
}

type agentKey struct{}

// NewHTTP returns the handler of the MCP endpoint. Close ends its
// sessions.
func NewHTTP(svc *review.Service, opts HTTPOptions) *HTTP {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxPerAgent <= 0 {
		opts.MaxPerAgent = DefaultMaxPerAgent
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 30 * time.Minute
	}
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = DefaultInitTimeout
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
	if opts.Log == nil {
		opts.Log = func(string, string) {}
	}
	h := &HTTP{svc: svc, opts: opts, servers: map[string]*Server{}, sessions: map[string]*tracked{},
		agents: map[string]int{}, early: map[string]time.Time{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.events = newEventStore(&h.cancels)
	// The SDK's guard against DNS rebinding refuses a request that came
	// to a loopback address under another host name: exactly what a TLS
	// proxy in front of 127.0.0.1 sends. The guard here is the Origin
	// check (origin.go), which a browser cannot forge, and the token.
	// Idle sessions are closed here (closeIdle), not by the SDK, whose
	// timeout does not count a stream the client listens on. The event
	// store numbers the events of every stream, so that a client whose
	// stream dropped resumes it with Last-Event-ID.
	sdk := mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true,
		EventStore: h.events})
	// The SDK ties each session to the user of the token it began with.
	h.handler = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		a, _ := ctx.Value(agentKey{}).(session)
		return &auth.TokenInfo{UserID: a.agent, Extra: map[string]any{"hash": a.hash}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(sdk)
	h.changes = opts.Changes
	if h.changes == nil {
		h.changes = broadcast.NewChanges(svc, opts.Poll)
		h.wg.Go(func() { h.changes.Run(h.ctx) })
	}
	h.wg.Go(h.watchSessions)
	return h
}

// ServeHTTP checks the request's origin and bearer token, then serves
// it: a new session only from an initialize and within the caps, a
// request of a session only with the token of its agent.
func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if why, ok := h.originAllowed(r); !ok {
		h.refuse(w, r, "", http.StatusForbidden, "origin", why)
		return
	}
	token, ok := bearer(r)
	if !ok {
		h.refuse(w, r, "", http.StatusUnauthorized, "token", "no bearer token: give the token `arbiter tokens issue` printed, as Authorization: Bearer TOKEN")
		return
	}
	a, ok, err := h.svc.TokenAgent(r.Context(), token)
	if err != nil {
		// Why goes to the log only: the caller is not known yet.
		w.Header().Set("Retry-After", "10")
		h.refuseTelling(w, r, "", http.StatusServiceUnavailable, "field", "the field does not answer: "+err.Error(),
			"the field does not answer, so the token cannot be checked: try again later")
		return
	}
	if !ok {
		h.refuse(w, r, "", http.StatusUnauthorized, "token", "the token is not one the field holds (revoked, or never issued)")
		return
	}
	sess := session{agent: a.ID, hash: review.TokenHash(token), addr: r.RemoteAddr}
	r = r.WithContext(context.WithValue(r.Context(), agentKey{}, sess))
	w = &retryWriter{ResponseWriter: w}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		h.begin(w, r, sess)
		return
	}
	if owner, known := h.owner(id); known && owner != sess.agent {
		h.refuse(w, r, sess.agent, http.StatusForbidden, "session", fmt.Sprintf("session of %s asked for with %s's token", q(owner), q(sess.agent)))
		return
	}
	h.busy(id, 1)
	defer h.busy(id, -1)
	if r.Method == http.MethodPost {
		msgs, body, err := readMessages(r)
		if err != nil {
			writeWireError(w, http.StatusBadRequest, nil, codeParseError, err.Error())
			return
		}
		if m, ok := unknownCall(msgs); ok {
			writeWireError(w, http.StatusOK, m.ID, codeMethodNotFound, fmt.Sprintf("method %q is not one this server answers", *m.Method))
			return
		}
		r.Body = body
		if calls := h.cancels.note(id, msgs); len(calls) > 0 {
			defer h.cancels.forget(id, calls)
			qw := &quietWriter{ResponseWriter: w, c: &h.cancels, session: id, calls: calls}
			defer qw.finish()
			w = qw
		}
	}
	h.handler.ServeHTTP(w, r)
}

// begin serves a POST without a session: an initialize begins one, if
// the caps allow; server/discover and the protocol of 2026-07-28, which
// this endpoint does not serve, are answered as the protocol says, so
// that the client falls back to initialize; anything else needs a session.
func (h *HTTP) begin(w http.ResponseWriter, r *http.Request, sess session) {
	if r.Method != http.MethodPost {
		h.handler.ServeHTTP(w, r) // the SDK's answer: 400, or 405
		return
	}
	msgs, body, err := readMessages(r)
	if err != nil {
		writeWireError(w, http.StatusBadRequest, nil, codeParseError, err.Error())
		return
	}
	r.Body = body
	m, kind := firstOf(msgs)
	switch {
	case kind == "discover" || modernRequested(r, msgs):
		unsupportedVersion(w, r, m)
		return
	case kind != "initialize":
		var id any
		if m != nil {
			id = m.ID
		}
		writeWireError(w, http.StatusBadRequest, id, codeInvalidRequest,
			"no Mcp-Session-Id: begin a session with initialize, then send its id in the Mcp-Session-Id header")
		return
	}
	if key, why, ok := h.reserve(sess.agent); !ok {
		w.Header().Set("Retry-After", "10")
		h.refuse(w, r, sess.agent, http.StatusServiceUnavailable, key, why)
		return
	}
	// The session takes its place as its id goes out, before the client
	// can send a request with it.
	aw := &adoptWriter{ResponseWriter: w, adopt: func(id string) { h.adopt(r, id, sess) }}
	h.handler.ServeHTTP(aw, r)
	aw.once("")
}

// refuse answers a refused request with status and a one-line reason,
// and logs it: the address, the agent when known, why. The connection is
// closed after the answer, so that a body the client is still sending is
// never waited for.
func (h *HTTP) refuse(w http.ResponseWriter, r *http.Request, agent string, status int, key, why string) {
	h.refuseTelling(w, r, agent, status, key, why, why)
}

// refuseTelling is refuse, answering told rather than why, which the
// log alone holds.
func (h *HTTP) refuseTelling(w http.ResponseWriter, r *http.Request, agent string, status int, key, why, told string) {
	who := "from " + r.RemoteAddr
	if agent != "" {
		who = q(agent) + " " + who
	}
	h.opts.Log("refused "+key, fmt.Sprintf("mcp: refused %s %s: %d, %s", r.Method, who, status, why))
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="arbiter", error="invalid_token"`)
	}
	w.Header().Set("Connection", "close")
	http.Error(w, told, status)
}

func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// server is the agent's server, made the first time it is asked for.
func (h *HTTP) server(r *http.Request) *mcp.Server {
	if s := h.serverOf(r); s != nil {
		return s.mcp
	}
	return nil
}

func (h *HTTP) serverOf(r *http.Request) *Server {
	a, _ := r.Context().Value(agentKey{}).(session)
	if a.agent == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.servers[a.agent]; s != nil {
		return s
	}
	s, err := New(r.Context(), h.svc, a.agent, h.opts.Options)
	if err != nil {
		fmt.Fprintf(h.opts.Notices, "arbiter: mcp: serving %s: %v\n", q(a.agent), err)
		return nil
	}
	s.follow = h.initialized
	s.changes = wakes(h.changes.Subscribe(h.ctx))
	h.servers[a.agent] = s
	return s
}

// wakes are the field's changes as the process's one watch tells them.
type wakes <-chan int64

func (w wakes) Next(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case _, ok := <-w:
		if !ok {
			return context.Canceled
		}
		return nil
	}
}

// Sessions is how many sessions are open, initialized or not.
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
	open := make([]*tracked, 0, len(h.sessions))
	for _, t := range h.sessions {
		open = append(open, t)
	}
	h.mu.Unlock()
	for _, t := range open {
		h.end(t, "the server is stopping")
	}
	h.cancel()
	h.wg.Wait()
}
