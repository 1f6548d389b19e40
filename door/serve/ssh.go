package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"arbiter/door/tui"
	"arbiter/internal/keymap"
	"arbiter/internal/safetext"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/charmbracelet/colorprofile"
	gossh "golang.org/x/crypto/ssh"
)

// sshServer is the people's side: the review screen, one per session,
// for the person whose key opened it.
type sshServer struct {
	s   *server
	srv *ssh.Server

	mu       sync.Mutex
	sessions map[ssh.Session]*screen // open screens, to end at a stop
	stopping bool
	// gone is signalled when a screen closes.
	gone chan struct{}
}

// screen is one session's review screen.
type screen struct {
	cancel  context.CancelFunc
	program chan *tea.Program // given once, when the program is made
	running chan struct{}     // closed once it runs
}

// quit asks the screen to end as its person's force-quit key would,
// which writes first any decision still in its undo window; a screen not
// yet running, or whose key cannot be typed, is ended at once.
func (sc *screen) quit(keys keymap.Map) {
	if keys.IsZero() {
		keys = keymap.Default()
	}
	msg, ok := keyPress(keys.ForceQuit.Keys())
	select {
	case <-sc.running:
	default:
		ok = false
	}
	var p *tea.Program
	select {
	case p = <-sc.program:
	default:
		ok = false
	}
	if !ok {
		sc.cancel()
		return
	}
	go p.Send(msg)
}

// keyPress is the first of keys that is a control key or one character,
// as a key press.
func keyPress(keys []string) (tea.KeyPressMsg, bool) {
	for _, k := range keys {
		if c, ok := strings.CutPrefix(k, "ctrl+"); ok && utf8.RuneCountInString(c) == 1 {
			r, _ := utf8.DecodeRuneInString(c)
			return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl}, true
		}
		if utf8.RuneCountInString(k) == 1 {
			r, _ := utf8.DecodeRuneInString(k)
			return tea.KeyPressMsg{Code: r, Text: k}, true
		}
	}
	return tea.KeyPressMsg{}, false
}

// personKey holds, in a connection's context, the person its key is of.
type personKey struct{}

func (s *server) newSSH() (*sshServer, error) {
	h := &sshServer{s: s, sessions: map[ssh.Session]*screen{}, gone: make(chan struct{}, 1)}
	srv, err := wish.NewServer(
		wish.WithHostKeyPath(s.opt.HostKey),
		wish.WithPublicKeyAuth(h.authorize),
		wish.WithIdleTimeout(s.opt.IdleTimeout),
		wish.WithVersion("arbiter"),
		wish.WithMiddleware(func(ssh.Handler) ssh.Handler { return h.session }),
	)
	if err != nil {
		return nil, fmt.Errorf("ssh: %w (the host key is %s)", err, s.opt.HostKey)
	}
	// A screen, nothing else: no subsystems (sftp), no port forwarding
	// (refused while its callbacks are unset), no passwords or
	// keyboard-interactive (no handlers, so never offered). A command is
	// taken only to be answered, in one line, that none runs (session).
	srv.SessionRequestCallback = func(_ ssh.Session, kind string) bool { return kind == "shell" || kind == "exec" }
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	h.srv = srv
	return h, nil
}

// authorize lets in a key the field holds for a registered person.
func (h *sshServer) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	fp := gossh.FingerprintSHA256(key)
	who, ok, err := h.s.svc.KeyOwner(ctx, fp)
	switch {
	case err != nil:
		h.s.logf("ssh: %s from %s: the field does not answer: %v", fp, ctx.RemoteAddr(), err)
		return false
	case !ok:
		h.s.logf("ssh: refused key %s from %s (user %q): not a key of a registered person", fp, ctx.RemoteAddr(), safetext.Line(ctx.User()))
		return false
	}
	ctx.SetValue(personKey{}, who.ID)
	return true
}

// session shows the screen for the session's person until they quit, the
// connection ends, or the server stops.
func (h *sshServer) session(sess ssh.Session) {
	person, _ := sess.Context().Value(personKey{}).(string)
	pty, windows, ok := sess.Pty()
	switch {
	case sess.RawCommand() != "":
		h.s.logf("ssh: refused a command from %s (%s): arbiter runs none", person, sess.RemoteAddr())
		refuse(sess, ok, "arbiter serves only the review screen, not commands: log in with no command and a terminal ("+loginLine(sess)+")")
		return
	case !ok:
		h.s.logf("ssh: refused a session without a terminal from %s (%s)", person, sess.RemoteAddr())
		refuse(sess, ok, "arbiter: the review screen needs a terminal ("+loginLine(sess)+")")
		return
	}
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	sc := &screen{cancel: cancel, program: make(chan *tea.Program, 1), running: make(chan struct{})}
	if !h.admit(sess, sc) {
		wish.Fatalln(sess, "arbiter: too many sessions are open; try again later")
		return
	}
	defer h.leave(sess)
	h.s.logf("ssh: %s opened the screen from %s (%dx%d, %s)", person, sess.RemoteAddr(), pty.Window.Width, pty.Window.Height, safetext.Line(pty.Term))

	env := append(sess.Environ(), "TERM="+pty.Term)
	program := make(chan *tea.Program, 1)
	var once sync.Once
	popts := []tea.ProgramOption{
		tea.WithInput(sess), tea.WithOutput(sess), tea.WithEnvironment(env),
		tea.WithColorProfile(colorprofile.Env(env)),
		tea.WithWindowSize(pty.Window.Width, pty.Window.Height),
		// The process's signals are the server's, not each screen's.
		tea.WithoutSignalHandler(),
		func(p *tea.Program) { program <- p; sc.program <- p },
		tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			once.Do(func() { close(sc.running) })
			return msg
		}),
	}
	go resize(ctx, program, sc.running, windows)
	err := tui.Run(ctx, desk{Service: h.s.svc, changes: h.s.changes}, tui.Options{Field: h.s.opt.Field, As: person, Theme: h.s.opt.Theme, Keys: h.s.opt.Keys, Views: h.s.opt.Views}, popts...)
	stopping := h.isStopping()
	switch {
	case stopping:
		wish.Println(sess, "\r\narbiter is stopping: your session ends here. Decisions you made are kept.\r")
	case err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) && ctx.Err() == nil:
		h.s.logf("ssh: %s's screen: %v", person, err)
	}
	h.s.logf("ssh: %s closed the screen", person)
}

// refuse ends sess with line on its stderr and exit status 1; a terminal
// (pty) gets the carriage return it needs.
func refuse(sess ssh.Session, pty bool, line string) {
	end := "\n"
	if pty {
		end = "\r\n"
	}
	fmt.Fprint(sess.Stderr(), line+end)
	_ = sess.Exit(1)
	_ = sess.Close()
}

// loginLine is how to open the screen on the port sess came in on.
func loginLine(sess ssh.Session) string {
	port := "22"
	if a, ok := sess.LocalAddr().(*net.TCPAddr); ok {
		port = strconv.Itoa(a.Port)
	}
	if port == "22" {
		return "ssh -t HOST"
	}
	return "ssh -t -p " + port + " HOST"
}

// resize passes the session's window changes to its program once it runs.
func resize(ctx context.Context, program <-chan *tea.Program, running <-chan struct{}, windows <-chan ssh.Window) {
	var p *tea.Program
	select {
	case p = <-program:
	case <-ctx.Done():
		return
	}
	select {
	case <-running:
	case <-ctx.Done():
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case w, ok := <-windows:
			if !ok {
				return
			}
			p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
		}
	}
}

func (h *sshServer) admit(sess ssh.Session, sc *screen) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopping || len(h.sessions) >= h.s.opt.MaxSSH {
		return false
	}
	h.sessions[sess] = sc
	return true
}

func (h *sshServer) leave(sess ssh.Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sessions, sess)
	select {
	case h.gone <- struct{}{}:
	default:
	}
}

func (h *sshServer) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *sshServer) isStopping() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stopping
}

func (h *sshServer) serve(l net.Listener) {
	if err := h.srv.Serve(l); err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		h.s.logf("ssh: %v", err)
	}
}

// shutdown stops accepting and ends every screen as its force-quit key
// would (a decision in its undo window is written first; each screen
// tells its person); screens still open a second before ctx ends are cut
// off, and the connections closed.
func (h *sshServer) shutdown(ctx context.Context) {
	h.mu.Lock()
	h.stopping = true
	for _, sc := range h.sessions {
		sc.quit(h.s.opt.Keys)
	}
	h.mu.Unlock()
	cut := time.NewTimer(time.Until(deadlineOf(ctx).Add(-time.Second)))
	defer cut.Stop()
	for h.open() > 0 {
		select {
		case <-h.gone:
			continue
		case <-cut.C:
		}
		break
	}
	h.mu.Lock()
	for _, sc := range h.sessions {
		sc.cancel()
	}
	h.mu.Unlock()
	if err := h.srv.Shutdown(ctx); err != nil {
		h.srv.Close()
	}
}

func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(ShutdownGrace)
}
