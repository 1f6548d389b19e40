package tui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"arbiter/internal/keymap"
	"arbiter/internal/testwait"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/")

// updating reports whether -update asks to rewrite the golden frames in
// testdata/.
func updating() bool { return *update }

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

// driver runs the screen in a test as the program runs it: it hands the
// model one message at a time, on the test's goroutine, runs the commands
// the model asks for (each on its own goroutine, as the program does),
// and keeps the frame drawn after each message, checking that no field
// text escaped into it. Every screen test drives the screen through one:
// by keys and frames waited for (start, keys, waitFor), by messages in
// the order a test needs (send, run, next), or both.
type driver struct {
	t   testing.TB
	m   *Model
	svc *review.Service
	// k are the bindings the screen runs with.
	k    keymap.Map
	msgs chan tea.Msg
	stop chan struct{}
	// frame is the last frame drawn; frames counts them.
	frame  string
	frames int
	// problem is the first frame that was not clean (frameProblem).
	problem string
	// slowest is the longest a message took to handle and draw.
	slowest time.Duration
	// quit: the screen asked to end; it handles no message after.
	quit bool
	// hold, while open, keeps back the formatting of the rest of units
	// whose heads arrived (see holdRests).
	hold chan struct{}
	// queueLoads counts the queue's loads; baseLoads is their number
	// when the test began to watch them.
	queueLoads, baseLoads int
	// formatting says, of each unit rendering seen, whether its rest is
	// still to come.
	formatting map[mdKey]bool
}

// newDriver is a driver of m that has not started it: the test hands it
// messages (send) or runs commands itself (run, start, next).
func newDriver(t testing.TB, m *Model) *driver {
	d := &driver{t: t, m: m, k: m.keys, msgs: make(chan tea.Msg, 64), stop: make(chan struct{}),
		formatting: map[mdKey]bool{}}
	t.Cleanup(func() { close(d.stop) })
	return d
}

// start opens the screen over svc for as, w × h cells, as the program
// does: Init, then the window's size.
func start(t testing.TB, svc *review.Service, as string, w, h int, opts ...func(*Options)) *driver {
	t.Helper()
	o := Options{Field: "field.db", As: as, Theme: "dark", Now: func() time.Time { return screenNow },
		UndoWindow: 150 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	d := newDriver(t, New(svc, o))
	d.svc = svc
	d.start(d.m.Init())
	d.send(windowSize(w, h))
	return d
}

// start runs cmd as the program does: a batch's commands each on its
// own goroutine, a sequence's one after another; their messages come
// back to the driver.
func (d *driver) start(cmd tea.Cmd) {
	if cmd != nil {
		go func() { d.deliver(cmd()) }()
	}
}

// deliver passes msg on, running the commands it holds.
func (d *driver) deliver(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.start(c)
		}
		return
	}
	if cmds, ok := sequenceOf(msg); ok {
		for _, c := range cmds {
			if c != nil {
				d.deliver(c())
			}
		}
		return
	}
	if cmd, fn, ok := execOf(msg); ok {
		d.deliver(fn(cmd.Run()))
		return
	}
	select {
	case d.msgs <- msg:
	case <-d.stop:
	}
}

// sequenceOf is the commands of tea.Sequence's message, whose type
// bubbletea keeps to itself.
func sequenceOf(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	cmds := reflect.TypeFor[[]tea.Cmd]()
	if v.Kind() != reflect.Slice || v.Type() == cmds || !v.Type().ConvertibleTo(cmds) {
		return nil, false
	}
	return v.Convert(cmds).Interface().([]tea.Cmd), true
}

// execOf is the command and callback of tea.ExecProcess's message (the
// $EDITOR), which the program runs itself.
func execOf(msg tea.Msg) (tea.ExecCommand, tea.ExecCallback, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Struct || v.Type().Name() != "execMsg" {
		return nil, nil, false
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	if cf, ff := c.FieldByName("cmd"), c.FieldByName("fn"); !cf.IsValid() || !ff.IsValid() {
		panic("bubbletea's execMsg no longer has the fields cmd and fn: the driver must learn its new shape")
	}
	field := func(name string) any {
		f := c.FieldByName(name)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	return field("cmd").(tea.ExecCommand), field("fn").(tea.ExecCallback), true
}

// send updates the screen with msg, draws the frame and runs what the
// screen asks for.
func (d *driver) send(msg tea.Msg) {
	if d.quit {
		return
	}
	if _, ok := msg.(tea.QuitMsg); ok {
		d.quit = true
		return
	}
	begin := time.Now()
	_, cmd := d.m.Update(msg)
	d.frame = d.m.View().Content
	d.slowest = max(d.slowest, time.Since(begin))
	d.frames++
	if p := frameProblem(d.frame); p != "" && d.problem == "" {
		d.problem = p + "\nin the frame:\n" + sgr.ReplaceAllString(d.frame, "")
	}
	switch msg := msg.(type) {
	case queueLoadedMsg:
		d.queueLoads++
	case renderedMsg:
		d.formatting[msg.key] = msg.rest != nil
		if rest, hold := cmd, d.hold; msg.rest != nil && cmd != nil && hold != nil {
			cmd = func() tea.Msg { <-hold; return rest() }
		}
	}
	d.start(cmd)
}

// pump handles every message that has come back so far.
func (d *driver) pump() {
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		default:
			return
		}
	}
}

// await handles the next message that comes back, or returns false if
// none came by deadline.
func (d *driver) await(deadline time.Time) bool {
	select {
	case msg := <-d.msgs:
		d.send(msg)
		return true
	case <-time.After(time.Until(deadline)):
		return false
	}
}

// run runs cmd, and every command of a batch in it, one after another on
// the test's goroutine, and returns their messages, unhandled.
func (d *driver) run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, d.run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// next waits for the next message that comes back for which keep is
// true, and returns it unhandled; the others are dropped.
func (d *driver) next(keep func(tea.Msg) bool) tea.Msg {
	d.t.Helper()
	timeout := time.After(testwait.Deadline)
	for {
		select {
		case msg := <-d.msgs:
			if keep(msg) {
				return msg
			}
		case <-timeout:
			d.t.Fatalf("no message came in %s", testwait.Deadline)
		}
	}
}

// collect runs cmd as the program would and returns the messages for
// which keep is true, unhandled, once want of them have come back. Ticks
// and other slow commands are left running (their messages are dropped).
func (d *driver) collect(cmd tea.Cmd, keep func(tea.Msg) bool, want int) []tea.Msg {
	d.t.Helper()
	d.start(cmd)
	var out []tea.Msg
	for len(out) < want {
		out = append(out, d.next(keep))
	}
	return out
}

// until handles messages until done is true of the frame drawn, and
// returns it; it fails after limit.
func (d *driver) until(limit time.Duration, what string, done func(frame string) bool) string {
	d.t.Helper()
	deadline := time.Now().Add(limit)
	d.pump()
	for !done(d.frame) {
		if !d.await(deadline) {
			d.t.Fatalf("after %s the screen still did not show %s; last frame:\n%s", limit, what, ansi.Strip(d.frame))
		}
	}
	return d.frame
}

// holdRests keeps the rest of every unit from being formatted until
// releaseRests: the panes show the heads only, for as long as the test
// needs.
func (d *driver) holdRests() { d.hold = make(chan struct{}) }

func (d *driver) releaseRests() {
	close(d.hold)
	d.hold = nil
}

// unhurried gives the screen all the time it needs to format units, for
// tests that check formatted text whatever the machine's load (see
// unhurried in mdjob_test.go). Call it before the screen formats anything.
func (d *driver) unhurried() { d.m.md = unhurried() }

// Frame is the frame once every message come back so far is handled,
// with colour and style removed.
func (d *driver) Frame() string { return ansi.Strip(d.Styled()) }

// Styled is that frame as the terminal gets it.
func (d *driver) Styled() string {
	d.pump()
	return d.frame
}

// waitFor waits until the frame contains every one of texts.
func (d *driver) waitFor(texts ...string) string {
	d.t.Helper()
	has := func(frame string) bool {
		frame = ansi.Strip(frame)
		for _, want := range texts {
			if !strings.Contains(frame, want) {
				return false
			}
		}
		return true
	}
	return ansi.Strip(d.until(testwait.Deadline, fmt.Sprintf("%q", texts), has))
}

// waitGone waits until the frame no longer contains text.
func (d *driver) waitGone(text string) string {
	d.t.Helper()
	gone := func(frame string) bool { return !strings.Contains(ansi.Strip(frame), text) }
	return ansi.Strip(d.until(testwait.Deadline, fmt.Sprintf("no %q", text), gone))
}

func (d *driver) keys(keys ...string) {
	d.pump()
	for _, k := range keys {
		d.send(keyMsg(k))
	}
}

func (d *driver) typeText(text string) {
	d.pump()
	for _, r := range text {
		d.send(tea.KeyPressMsg(tea.Key{Code: r, Text: string(r)}))
	}
}

// press presses the first key of a binding, as the screen has it bound.
func (d *driver) press(b key.Binding) {
	d.t.Helper()
	if len(b.Keys()) == 0 {
		d.t.Fatalf("binding %+v has no key", b.Help())
	}
	d.keys(b.Keys()[0])
}

// settle handles every message come back so far, and reports false if
// the screen stopped handling them (it quit).
func (d *driver) settle() bool {
	d.pump()
	return !d.quit
}

// loads is how many times the queue was loaded, once every message come
// back so far is handled.
func (d *driver) loads() int {
	d.pump()
	return d.queueLoads
}

// clean fails the test if any frame so far was not clean.
func (d *driver) clean(step string) {
	d.t.Helper()
	if d.problem != "" {
		d.t.Fatalf("after %s, a frame carried %s", step, d.problem)
	}
}

// waitFormatted waits until both units on screen are formatted whole, so
// that no rest arrives later to move their panes.
func (d *driver) waitFormatted() {
	d.t.Helper()
	whole := func(string) bool {
		done := len(d.formatting) >= 2
		for _, more := range d.formatting {
			done = done && !more
		}
		return done
	}
	d.until(testwait.Deadline, "both units formatted whole", whole)
}

// keyMsg builds a key press from its name, as key.Matches reads it.
func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight}, "home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd},
		"pgup": {Code: tea.KeyPgUp}, "pgdown": {Code: tea.KeyPgDown}, "space": {Code: tea.KeySpace, Text: " "}, "f1": {Code: tea.KeyF1},
	}
	if key, ok := special[k]; ok {
		return tea.KeyPressMsg(key)
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 {
		return tea.KeyPressMsg(tea.Key{Code: rune(c[0]), Mod: tea.ModCtrl})
	}
	if c, ok := strings.CutPrefix(k, "alt+"); ok && len(c) == 1 {
		return tea.KeyPressMsg(tea.Key{Code: rune(c[0]), Mod: tea.ModAlt})
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
		t.Fatalf("no golden frame %s (run go test ./door/tui -update): %v", path, err)
	}
	if string(want) != frame {
		t.Errorf("frame %s differs from its golden file (go test ./door/tui -update rewrites it)\n--- got\n%s\n--- want\n%s", name, frame, want)
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
