package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"arbiter/demo"
	arbiterfield "arbiter/field"
	"arbiter/internal/keymap"
	"arbiter/review"
	"arbiter/store"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// updating reports whether -update (registered by teatest) asks to
// rewrite the golden frames in testdata/.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// screenNow is the screen's clock in tests. The demo's story happened
// demo.StoryAge before it, as for a field arbiter demo creates now, so
// ages, times and time left are the same on every run.
var screenNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// steppingClock starts at from and moves on a second at each reading.
func steppingClock(from time.Time) func() time.Time {
	var n atomic.Int64
	return func() time.Time { return from.Add(time.Duration(n.Add(1)) * time.Second) }
}

// demoField creates the demo field in a temporary directory and returns
// its path.
func demoField(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.db")
	ctx := context.Background()
	st, err := arbiterfield.Create(ctx, path, demo.Policy())
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.Populate(ctx, review.New(st).WithClock(demo.Clock(steppingClock(screenNow)))); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// openService opens a field for the screen (or for a test's own checks).
func openService(t testing.TB, path string, readOnly bool) *review.Service {
	t.Helper()
	st, err := arbiterfield.Open(context.Background(), path, store.Options{ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return review.New(st).WithClock(steppingClock(screenNow))
}

// probe wraps the screen and keeps its latest frame where the test can
// read it without racing the program.
type probe struct {
	inner *Model
	mu    sync.Mutex
	frame string
	// hold, while open, keeps back the formatting of the rest of units
	// whose heads arrived (see holdRests).
	hold chan struct{}
	// synced is the last syncMsg the program reached (see settle).
	synced int
	// loads counts the queue's loads.
	loads int
	// formatting says, of each unit rendering seen, whether its rest is
	// still to come.
	formatting map[mdKey]bool
}

// syncMsg marks a point in the program's messages: once the probe sees
// it, every message sent before it was handled.
type syncMsg struct{ n int }

func (p *probe) Init() tea.Cmd { return p.inner.Init() }

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m, ok := msg.(syncMsg); ok {
		p.mu.Lock()
		p.synced = m.n
		p.mu.Unlock()
		return p, nil
	}
	_, cmd := p.inner.Update(msg)
	p.mu.Lock()
	p.frame = p.inner.View().Content
	switch msg := msg.(type) {
	case queueLoadedMsg:
		p.loads++
	case renderedMsg:
		if p.formatting == nil {
			p.formatting = map[mdKey]bool{}
		}
		p.formatting[msg.key] = msg.rest != nil
	}
	hold := p.hold
	p.mu.Unlock()
	if r, ok := msg.(renderedMsg); ok && r.rest != nil && cmd != nil && hold != nil {
		rest := cmd
		cmd = func() tea.Msg { <-hold; return rest() }
	}
	return p, cmd
}

// holdRests keeps the rest of every unit from being formatted until
// releaseRests: the panes show the heads only, for as long as the test
// needs.
func (s *session) holdRests() {
	s.p.mu.Lock()
	s.p.hold = make(chan struct{})
	s.p.mu.Unlock()
}

// unhurried gives the screen all the time it needs to format units, for
// tests that check formatted text whatever the machine's load (see
// unhurried in mdjob_test.go). Call it before the screen formats anything.
func (s *session) unhurried() { s.p.inner.md = unhurried() }

func (s *session) releaseRests() {
	s.p.mu.Lock()
	close(s.p.hold)
	s.p.hold = nil
	s.p.mu.Unlock()
}

func (p *probe) View() tea.View { return p.inner.View() }

// Frame is the latest frame, with colour and style removed.
func (p *probe) Frame() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ansi.Strip(p.frame)
}

// Styled is the latest frame as the terminal gets it.
func (p *probe) Styled() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frame
}

// session is the screen running under teatest.
type session struct {
	t   *testing.T
	tm  *teatest.TestModel
	p   *probe
	svc *review.Service
	// k are the bindings the screen runs with.
	k     keymap.Map
	syncs int
	// baseLoads is the queue's loads when the test began to watch them.
	baseLoads int
}

func start(t *testing.T, svc *review.Service, as string, w, h int, opts ...func(*Options)) *session {
	t.Helper()
	o := Options{Field: "field.db", As: as, Theme: "dark", Now: func() time.Time { return screenNow },
		UndoWindow: 150 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	p := &probe{inner: New(svc, o)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(w, h))
	s := &session{t: t, tm: tm, p: p, svc: svc, k: p.inner.keys}
	t.Cleanup(func() { tm.Quit() })
	return s
}

// waitFor waits until the frame contains every one of texts.
func (s *session) waitFor(texts ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f := s.p.Frame()
		ok := true
		for _, want := range texts {
			if !strings.Contains(f, want) {
				ok = false
			}
		}
		if ok {
			return f
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; last frame:\n%s", texts, f)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone waits until the frame no longer contains text.
func (s *session) waitGone(text string) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f := s.p.Frame()
		if !strings.Contains(f, text) {
			return f
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen kept showing %q; last frame:\n%s", text, f)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *session) keys(keys ...string) {
	for _, k := range keys {
		s.tm.Send(keyMsg(k))
	}
}

func (s *session) typeText(text string) { s.tm.Type(text) }

// press presses the first key of a binding, as the screen has it bound.
func (s *session) press(b key.Binding) {
	s.t.Helper()
	if len(b.Keys()) == 0 {
		s.t.Fatalf("binding %+v has no key", b.Help())
	}
	s.keys(b.Keys()[0])
}

// settle waits until the program has handled every message sent so far,
// and reports false if it stopped handling them (it quit).
func (s *session) settle() bool {
	s.syncs++
	n := s.syncs
	s.tm.Send(syncMsg{n})
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		s.p.mu.Lock()
		done := s.p.synced >= n
		s.p.mu.Unlock()
		if done {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// waitFormatted waits until both units on screen are formatted whole, so
// that no rest arrives later to move their panes.
func (s *session) waitFormatted() {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.p.mu.Lock()
		done := len(s.p.formatting) >= 2
		for _, more := range s.p.formatting {
			done = done && !more
		}
		s.p.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the units were never formatted whole; last frame:\n%s", s.p.Frame())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// loads is how many times the queue was loaded.
func (s *session) loads() int {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return s.p.loads
}

// keyMsg builds a key press from its name, as key.Matches reads it.
func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight}, "home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd},
		"pgup": {Code: tea.KeyPgUp}, "pgdown": {Code: tea.KeyPgDown}, "space": {Code: tea.KeySpace, Text: " "},
	}
	if key, ok := special[k]; ok {
		return tea.KeyPressMsg(key)
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 {
		return tea.KeyPressMsg(tea.Key{Code: rune(c[0]), Mod: tea.ModCtrl})
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg(tea.Key{Code: r, Text: k})
}

// golden compares a final frame with testdata/NAME.golden (-update
// rewrites it).
func golden(t *testing.T, name, frame string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	frame = trimRight(frame)
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(frame), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no golden frame %s (run go test ./tui -update): %v", path, err)
	}
	if string(want) != frame {
		t.Errorf("frame %s differs from its golden file (go test ./tui -update rewrites it)\n--- got\n%s\n--- want\n%s", name, frame, want)
	}
}

func trimRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
