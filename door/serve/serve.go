// Package serve is `arbiter serve`: one process that gives a team its
// field — the review screen over SSH for people, who log in with a key a
// human operator added (`arbiter keys`), and MCP over Streamable HTTP for
// agents, who present a token a human operator issued (`arbiter tokens`)
// — and does the field's background work (the sweep of deadlines, the
// delivery of notices to hooks) while it runs. It stops on its context's end, within ShutdownGrace.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/internal/broadcast"
	"arbiter/internal/keymap"
	"arbiter/internal/queueview"
	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/service/review"
	"arbiter/store"
)

// ShutdownGrace is how long a stop waits for sessions and writes in
// flight before it closes what is left.
const ShutdownGrace = 8 * time.Second

// Options say what to serve and how.
type Options struct {
	// SSHAddr and HTTPAddr are the addresses to listen on ("" for none,
	// but at least one).
	SSHAddr, HTTPAddr string
	// HostKey is the SSH host key's file, made the first time (ed25519)
	// and kept.
	HostKey string
	// Field names the field in the screen's header.
	Field string
	// Store is the field the service works on; when set, its deliveries
	// are sent to their hooks while the server runs (service/deliver),
	// slack messages naming Open as the way in.
	Store store.Field
	Open  string
	// Theme, Keys and Views are the screen's (tui.Options).
	Theme string
	Keys  keymap.Map
	Views []queueview.View
	// IdleTimeout closes an SSH session or an MCP session idle that long
	// (default DefaultIdle).
	IdleTimeout time.Duration
	// MaxSSH and MaxMCP cap the sessions open at once (defaults
	// DefaultMaxSSH, DefaultMaxMCP), and MaxMCPPerAgent the MCP sessions
	// of one agent (DefaultMaxMCPPerAgent).
	MaxSSH, MaxMCP, MaxMCPPerAgent int
	// MaxConns caps the HTTP side's connections open at once, and
	// MaxConnsPerAddr those from one address (defaults DefaultMaxConns,
	// lowered to fit the process's limit of open files, and
	// DefaultMaxConnsPerAddr).
	MaxConns, MaxConnsPerAddr int
	// AllowOrigins are the origins whose pages may call /mcp besides the
	// same origin on this machine (mcpserver.HTTPOptions.AllowOrigins).
	AllowOrigins []string
	// Sweep is how often the field's deadlines are swept (default 5s;
	// negative: never).
	Sweep time.Duration
	// Poll is how often a SQLite field is checked for writes by others
	// (default 100ms); PostgreSQL announces them.
	Poll time.Duration
	// Log gets one line per event worth keeping: sessions opened and
	// closed, refusals, failures. Never a token.
	Log io.Writer
	// Listening, when set, is told the addresses once both listen.
	Listening func(ssh, http net.Addr)
}

// Defaults.
const (
	DefaultIdle            = 30 * time.Minute
	DefaultMaxSSH          = 100
	DefaultMaxMCP          = mcpserver.DefaultMaxSessions
	DefaultMaxMCPPerAgent  = mcpserver.DefaultMaxPerAgent
	DefaultMaxConns        = 4096
	DefaultMaxConnsPerAddr = 256
)

func (o *Options) defaults() {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdle
	}
	if o.MaxSSH <= 0 {
		o.MaxSSH = DefaultMaxSSH
	}
	if o.MaxMCP <= 0 {
		o.MaxMCP = DefaultMaxMCP
	}
	if o.MaxMCPPerAgent <= 0 {
		o.MaxMCPPerAgent = DefaultMaxMCPPerAgent
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.MaxConnsPerAddr <= 0 {
		o.MaxConnsPerAddr = DefaultMaxConnsPerAddr
	}
	if o.Sweep == 0 {
		o.Sweep = 5 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// server is one run of Run.
type server struct {
	svc  *review.Service
	opt  Options
	logm sync.Mutex
	// changes is the one watch of the field: it wakes the screens and
	// the MCP sessions.
	changes *broadcast.Changes
	// limited is the log of what clients can cause at will: refusals
	// and sessions, held back in a flood.
	limited *limitedLog
}

func (s *server) logf(format string, args ...any) {
	s.logm.Lock()
	defer s.logm.Unlock()
	fmt.Fprintf(s.opt.Log, "%s arbiter serve: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

// Run serves the field until ctx ends, then stops: it stops accepting,
// tells the people on SSH, ends the sessions, lets writes in flight
// finish, and returns nil within ShutdownGrace and a little. A listener
// that cannot be opened is an error at once.
func Run(ctx context.Context, svc *review.Service, opt Options) error {
	opt.defaults()
	if opt.SSHAddr == "" && opt.HTTPAddr == "" {
		return errors.New("nothing to serve: give --ssh ADDR, --http ADDR or both")
	}
	s := &server{svc: svc, opt: opt, changes: broadcast.NewChanges(svc, opt.Poll)}
	s.limited = newLimitedLog(s)
	var (
		sshL, httpL net.Listener
		err         error
	)
	if opt.SSHAddr != "" {
		if sshL, err = net.Listen("tcp", opt.SSHAddr); err != nil {
			return fmt.Errorf("ssh: cannot listen on %s: %w", opt.SSHAddr, err)
		}
	}
	if opt.HTTPAddr != "" {
		if httpL, err = net.Listen("tcp", opt.HTTPAddr); err != nil {
			if sshL != nil {
				sshL.Close()
			}
			return fmt.Errorf("http: cannot listen on %s: %w", opt.HTTPAddr, err)
		}
	}
	var sshS *sshServer
	if sshL != nil {
		if sshS, err = s.newSSH(); err != nil {
			sshL.Close()
			if httpL != nil {
				httpL.Close()
			}
			return err
		}
	}
	var httpS *httpServer
	if httpL != nil {
		httpS = s.newHTTP()
	}

	var wg sync.WaitGroup
	jobs, stopJobs := context.WithCancel(context.Background())
	defer stopJobs()
	s.background(jobs, &wg)
	if sshS != nil {
		wg.Go(func() { sshS.serve(sshL) })
		s.logf("people: ssh on %s", sshL.Addr())
	}
	if httpS != nil {
		wg.Go(func() { httpS.serve(httpL) })
		s.logf("agents: MCP on http://%s/mcp", httpL.Addr())
	}
	if p := svc.Polling(); p != "" {
		s.logf("%s; screens and agents hear of changes within 2 s, not at once (set listen_db, docs/postgres.md)", p)
	}
	if opt.Listening != nil {
		opt.Listening(addrOf(sshL), addrOf(httpL))
	}

	<-ctx.Done()
	s.logf("stopping")
	stop, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	var stops sync.WaitGroup
	if sshS != nil {
		stops.Go(func() { sshS.shutdown(stop) })
	}
	if httpS != nil {
		stops.Go(func() { httpS.shutdown(stop) })
	}
	stops.Wait()
	stopJobs()
	wg.Wait()
	s.logf("stopped")
	return nil
}

func addrOf(l net.Listener) net.Addr {
	if l == nil {
		return nil
	}
	return l.Addr()
}

// background starts the jobs that run for as long as the server does,
// each stopping when ctx ends and counted in wg. This is the one place
// for them: the sweep of deadlines is one; the delivery of notifications
// is started here too.
func (s *server) background(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() { s.sweep(ctx) })
	wg.Go(func() { s.deliver(ctx) })
	wg.Go(func() { s.changes.Run(ctx) })
	wg.Go(func() { s.flushLog(ctx) })
}

// flushLog says, every logFlush, how many lines a flood held back.
func (s *server) flushLog(ctx context.Context) {
	t := time.NewTicker(logFlush)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.limited.flush()
			return
		case <-t.C:
			s.limited.flush()
		}
	}
}

// sweep does what the field's deadlines ask for every opt.Sweep, for
// every session at once: neither the screens nor the MCP sessions this
// process serves sweep themselves.
func (s *server) sweep(ctx context.Context) {
	if ro, _ := s.svc.ReadOnly(); ro || s.opt.Sweep < 0 {
		return
	}
	t := time.NewTicker(s.opt.Sweep)
	defer t.Stop()
	failing := false
	for {
		rep, err := s.svc.Sweep(ctx)
		switch {
		case model.HasCode(err, model.CodeNotPermitted):
			s.logf("deadlines are not swept: %v (give --as a human operator)", err)
			return
		case err != nil && ctx.Err() == nil && !failing:
			s.logf("sweeping the field's deadlines: %v (trying again)", err)
			failing = true
		case err == nil:
			failing = false
			if n := len(rep.Actions); n > 0 {
				s.logf("swept the field's deadlines: %d actions", n)
			}
			for _, h := range rep.Held {
				s.logf("wrote %s's decision held when their screen ended (%s): %s", h.AgentID, h.What, heldResult(h))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// deliver sends the field's deliveries to their hooks until ctx ends, as
// `arbiter deliver` does; a failure is logged once and tried again.
func (s *server) deliver(ctx context.Context) {
	if s.opt.Store == nil || s.opt.Store.ReadOnly() {
		return
	}
	opts := deliver.Options{Open: s.opt.Open, Log: s.opt.Log}
	failing := false
	for ctx.Err() == nil {
		err := deliver.Run(ctx, s.opt.Store, opts)
		if err == nil {
			return
		}
		if !failing {
			s.logf("delivering notices to hooks: %v (trying again)", err)
			failing = true
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// heldResult says in a few words what came of a held decision a sweep
// carried out.
func heldResult(h model.HeldOutcome) string {
	if h.Written {
		return "written"
	}
	return "not written, told to them: " + h.Reason
}
