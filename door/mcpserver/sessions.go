package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sessions over HTTP are counted from their initialize, initialized or
// not: a place is reserved, under one lock with the caps, before the
// SDK's handler sees the initialize (reserve); the session it made takes
// the place once the initialize is answered (adopt), or the place is
// given back. Every tracked session ends by one of: its client, the idle
// timeout, the initialization timeout, its token revoked, or the server
// stopping (end), and its end gives its place back.

// tracked is an open session.
type tracked struct {
	ss      *mcp.ServerSession
	srv     *Server
	session // agent, token hash, address
	began   time.Time
	ready   bool      // notifications/initialized came
	open    int       // requests in flight (a stream is one until it ends)
	last    time.Time // when the last one ended
	why     string    // why the server ended it
}

// reserve takes a place for a session of agent, or says why there is
// none.
func (h *HTTP) reserve(agent string) (key, why string, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return "stopping", "the server is stopping", false
	case len(h.sessions)+h.pending >= h.opts.MaxSessions:
		return "full", fmt.Sprintf("%d sessions are open, the most this server takes (--max-mcp): try again later", h.opts.MaxSessions), false
	case h.agents[agent] >= h.opts.MaxPerAgent:
		return "agent full", fmt.Sprintf("%s has %d sessions open, the most one agent may (--max-mcp-per-agent): close one first",
			q(agent), h.opts.MaxPerAgent), false
	}
	h.pending++
	h.agents[agent]++
	return "", "", true
}

// adopt gives the place reserved for an initialize to the session the SDK
// made for it (id, from the answer), or gives the place back when there
// is none.
func (h *HTTP) adopt(r *http.Request, id string, sess session) {
	srv := h.serverOf(r)
	var ss *mcp.ServerSession
	if srv != nil && id != "" {
		for s := range srv.mcp.Sessions() {
			if s.ID() == id {
				ss = s
				break
			}
		}
	}
	h.mu.Lock()
	h.pending--
	if ss == nil || h.closed {
		h.release(sess.agent)
		h.mu.Unlock()
		if ss != nil {
			ss.Close()
		}
		return
	}
	t := &tracked{ss: ss, srv: srv, session: sess, began: time.Now(), last: time.Now()}
	h.sessions[id] = t
	_, ready := h.early[id]
	delete(h.early, id)
	n := h.agents[sess.agent]
	h.mu.Unlock()
	h.opts.Log("session", fmt.Sprintf("mcp: session opened by %s from %s (%d open of the %d it may have)", q(sess.agent), sess.addr, n, h.opts.MaxPerAgent))
	if ready {
		h.ready(t)
	}
	h.wg.Go(func() {
		ss.Wait()
		h.mu.Lock()
		delete(h.sessions, id)
		h.release(sess.agent)
		why, ready := t.why, t.ready
		h.mu.Unlock()
		if ready {
			h.watching(srv, -1)
		}
		if why == "" {
			why = "by the client"
		}
		h.opts.Log("session", fmt.Sprintf("mcp: session of %s from %s closed %s", q(sess.agent), sess.addr, why))
	})
}

// release gives back a place of agent; h.mu is held.
func (h *HTTP) release(agent string) {
	if h.agents[agent]--; h.agents[agent] <= 0 {
		delete(h.agents, agent)
	}
}

// initialized is told by an agent's server that a session sent
// notifications/initialized.
func (h *HTTP) initialized(_ context.Context, ss *mcp.ServerSession) {
	h.mu.Lock()
	t := h.sessions[ss.ID()]
	if t == nil {
		// Initialized before its initialize's answer was through adopt.
		if !h.closed {
			h.early[ss.ID()] = time.Now()
		}
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	h.ready(t)
}

// ready marks t initialized: its agent's server watches the field while
// any of its sessions is.
func (h *HTTP) ready(t *tracked) {
	h.mu.Lock()
	if t.ready {
		h.mu.Unlock()
		return
	}
	t.ready = true
	h.mu.Unlock()
	h.watching(t.srv, 1)
}

// watching counts an initialized session of s beginning (+1) or ending
// (-1); s watches the field while the count is above 0.
func (h *HTTP) watching(s *Server, d int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.watchers += d
	switch {
	case d > 0 && s.watchers == 1:
		ctx, cancel := context.WithCancel(h.ctx)
		s.stopWatch = cancel
		h.wg.Go(func() { s.watch(ctx) })
	case d < 0 && s.watchers == 0 && s.stopWatch != nil:
		s.stopWatch()
		s.stopWatch = nil
	}
}

// owner is the agent of session id, if it is tracked.
func (h *HTTP) owner(id string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.sessions[id]; t != nil {
		return t.agent, true
	}
	return "", false
}

// busy counts a request of session id starting (+1) or ending (-1).
func (h *HTTP) busy(id string, d int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.sessions[id]; t != nil {
		t.open += d
		t.last = time.Now()
	}
}

// end closes t's session, saying why in the log.
func (h *HTTP) end(t *tracked, why string) {
	h.mu.Lock()
	if t.why == "" {
		t.why = why
	}
	h.mu.Unlock()
	t.ss.Close()
}

// watchSessions ends the sessions that are idle, that never initialized,
// or whose token the field no longer holds: at each change of the field
// (a revocation is one) and every opts.RevokeCheck.
func (h *HTTP) watchSessions() {
	t := time.NewTicker(h.opts.RevokeCheck)
	defer t.Stop()
	changed := h.changes.Subscribe(h.ctx)
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
			h.closeStale()
		case <-changed:
		}
		h.closeRevoked()
	}
}

// closeStale ends the sessions with nothing in flight and no request for
// opts.IdleTimeout, and those not initialized within opts.InitTimeout.
func (h *HTTP) closeStale() {
	type ending struct {
		t   *tracked
		why string
	}
	var stale []ending
	h.mu.Lock()
	for _, t := range h.sessions {
		switch {
		case !t.ready && time.Since(t.began) > h.opts.InitTimeout:
			stale = append(stale, ending{t, fmt.Sprintf("after %v without notifications/initialized", h.opts.InitTimeout)})
		case t.open <= 0 && time.Since(t.last) > h.opts.IdleTimeout:
			stale = append(stale, ending{t, fmt.Sprintf("idle for %v", h.opts.IdleTimeout)})
		}
	}
	for id, at := range h.early {
		if time.Since(at) > time.Minute {
			delete(h.early, id)
		}
	}
	h.mu.Unlock()
	for _, e := range stale {
		h.end(e.t, e.why)
	}
}

// closeRevoked ends the sessions whose token the field no longer holds.
func (h *HTTP) closeRevoked() {
	h.mu.Lock()
	n := len(h.sessions)
	h.mu.Unlock()
	if n == 0 {
		return
	}
	asked := time.Now()
	toks, err := h.svc.Tokens(h.ctx)
	if err != nil {
		return
	}
	held := map[string]bool{}
	for _, k := range toks {
		held[k.Hash] = true
	}
	for _, t := range h.revoked(held, asked) {
		h.end(t, "as its token was revoked")
	}
}

// revoked are the sessions begun before asked whose token is not among
// held, the tokens the field held at asked. A session begun since was let
// in on a token newer than what was read (one issued meanwhile) and is
// checked at the next change or tick: ending it would end a client just
// let in (TestHTTPInboxNoticeReachesItsAgent, on a loaded machine).
func (h *HTTP) revoked(held map[string]bool, asked time.Time) []*tracked {
	h.mu.Lock()
	defer h.mu.Unlock()
	var gone []*tracked
	for _, t := range h.sessions {
		if !held[t.hash] && t.began.Before(asked) {
			gone = append(gone, t)
		}
	}
	return gone
}
