package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"arbiter/internal/keymap"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The help screen lists the bindings of keymap's table under headings,
// one per place of the screen, those of the screen it was opened on
// first, each with its sentence of what it does, wrapped to the width;
// it scrolls, and says where it is. The footer's short help is each
// screen's own, fitted to the width, and always ends with help's key.

// helpScreen is the help, over the screen under it.
type helpScreen struct{ under screen }

// helpState is the help's scroll, and its lines as last laid out.
type helpState struct {
	top   int
	lines []string
	// key is what the lines were laid out for.
	key helpKey
}

type helpKey struct {
	w     int
	first keymap.Context
	theme string
}

func (h helpScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	s := &m.helpState
	page := max(1, m.bodyHeight()-2)
	switch {
	case key.Matches(msg, k.Up):
		s.top--
	case key.Matches(msg, k.Down):
		s.top++
	case key.Matches(msg, k.PageUp):
		s.top -= page
	case key.Matches(msg, k.PageDown):
		s.top += page
	case key.Matches(msg, k.Top):
		s.top = 0
	case key.Matches(msg, k.Bottom):
		s.top = len(s.lines)
	default: // back, help, quit and any other key close it
		m.pop()
		return nil
	}
	s.top = max(0, min(s.top, len(s.lines)-(m.bodyHeight()-1)))
	return nil
}

func (helpScreen) help(m *Model) []key.Binding {
	k := m.keys
	return []key.Binding{k.Down, k.Up, k.PageDown, k.Back}
}

func (h helpScreen) place(m *Model) keymap.Context { return keymap.InHelp }

func (helpScreen) update(*Model, tea.Msg) tea.Cmd { return nil }

func (h helpScreen) prepare(m *Model) { m.helpLines(m.width, placeOf(m, h.under)) }

func (h helpScreen) view(m *Model, w, h2 int) string {
	lines := m.helpLines(w, placeOf(m, h.under))
	k := m.keys
	return scrolled(m.styles, lines, m.helpState.top, h2, keyOf(k.Down)+" "+keyOf(k.Up)+" "+keyOf(k.PageDown)+" scroll · "+keyOf(k.Back)+" closes")
}

// openHelp shows the help over the screen in front, at its top.
func (m *Model) openHelp() {
	m.helpState.top = 0
	m.push(helpScreen{under: m.top()})
}

// helpLines lays out the help for width w, the place first's bindings
// first.
func (m *Model) helpLines(w int, first keymap.Context) []string {
	s := &m.helpState
	k := helpKey{w: w, first: first, theme: m.styles.Theme.Name()}
	if s.lines != nil && s.key == k {
		return s.lines
	}
	st := m.styles
	secs := m.helpKeys().Sections(first)
	keyW := 0
	for _, sec := range secs {
		for _, e := range sec.Entries {
			keyW = max(keyW, ansi.StringWidth(keyOf(e.Binding)))
		}
	}
	keyW = min(keyW, 12)
	var out []string
	for i, sec := range secs {
		title := sec.Title
		if i == 0 && sec.In&first != 0 {
			title += " — where you are"
		}
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, st.Title.Render(title))
		for _, e := range sec.Entries {
			if !e.Binding.Enabled() {
				continue
			}
			out = append(out, helpEntry(st, e, keyW, w)...)
		}
		if sec.In&keymap.InQueue != 0 {
			out = append(out, "")
			out = append(out, wrapLines(m.legend(), w)...)
		}
	}
	s.lines, s.key = out, k
	return out
}

// helpEntry is one binding's lines: its keys, then what it does, wrapped
// under itself.
func helpEntry(st Styles, e keymap.SectionEntry, keyW, w int) []string {
	label := keyOf(e.Binding)
	doc := e.Binding.Help().Desc + ": " + e.Doc
	if e.Where != "" {
		doc += st.Muted.Render(" (on " + e.Where + ")")
	}
	indent := 2 + keyW + 2
	lines := wrapLines(doc, max(10, w-indent))
	pad := strings.Repeat(" ", indent)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = pad + l
	}
	k := st.Key.Render(label)
	if n := ansi.StringWidth(label); n <= keyW {
		out[0] = "  " + k + strings.Repeat(" ", keyW-n+2) + lines[0]
	} else { // a key wider than the column takes a line of its own
		out = append([]string{"  " + k}, out...)
	}
	return out
}

// legend says what the queue's row marks mean.
func (m *Model) legend() string {
	st := m.styles
	mark := func(sign, what string) string { return st.Key.Render(sign) + " " + st.Muted.Render(what) }
	return strings.Join([]string{st.Label.Render("Rows:"), mark("●", "yours to act on ·"), mark("✓", "marked ·"),
		mark("⋯", "decided, in its undo window ·"), mark("↷", "decided in the decisions file ·"),
		mark("!", "due soon (DUE)")}, " ")
}

// scrolled shows h lines of lines from top, the last of them saying
// where they are when lines are more than h, and how to see the others
// (what): "lines 12–31 of 160 ↑↓ · ↓/j ↑/k pgdn scroll · esc closes".
func scrolled(st Styles, lines []string, top, h int, what string) string {
	if len(lines) <= h {
		return strings.Join(lines, "\n")
	}
	rows := max(1, h-1)
	top = max(0, min(top, len(lines)-rows))
	end := top + rows
	return strings.Join(lines[top:end], "\n") + "\n" + st.Muted.Render("lines "+position(top, end, len(lines))+" · "+what)
}

// position says which lines of n are shown, from (0-based) to end, and
// which ways there is more: "12–31 of 160 ↑↓".
func position(from, end, n int) string {
	arrows := ""
	if from > 0 {
		arrows += "↑"
	}
	if end < n {
		arrows += "↓"
	}
	return fmt.Sprintf("%d–%d of %d %s", from+1, end, n, arrows)
}

// shortHelpKeys are the bindings the footer shows for the screen in front.
func (m *Model) shortHelpKeys() []key.Binding { return m.top().help(m) }

// footerHelp is the footer's keys, fitted to the width: as many of
// bindings as fit, in their order, and help's key last, always.
func (m *Model) footerHelp(bindings []key.Binding) string {
	hk, ok := m.helpHint()
	var bs []key.Binding
	for _, b := range bindings {
		if b.Enabled() && !sameKeys(b, m.keys.Help) {
			bs = append(bs, b)
		}
	}
	h := m.help
	h.SetWidth(0)
	for n := len(bs); n >= 0; n-- {
		show := bs[:n:n]
		if ok {
			show = append(show, hk)
		}
		line := h.ShortHelpView(show)
		if ansi.StringWidth(line) <= m.width || n == 0 {
			return line
		}
	}
	return ""
}

// helpHint is help's binding as the footer names it where the person is:
// its keys that are not text where a text box has the keyboard (f1, not
// ?), else the table's. It is false when no key of help works there.
func (m *Model) helpHint() (key.Binding, bool) {
	b := m.keys.Help
	if m.place()&(keymap.InText|keymap.InPrompt|keymap.InFilter) == 0 {
		return b, true
	}
	var untyped []string
	for _, k := range b.Keys() {
		if utf8.RuneCountInString(k) > 1 && k != "space" {
			untyped = append(untyped, k)
		}
	}
	if len(untyped) == 0 {
		return b, false
	}
	b.SetHelp(strings.Join(untyped, "/"), b.Help().Desc)
	return b, true
}

// opensHelp reports whether msg opens the help where the person is: help's
// keys, but not a key that is text in a text box.
func (m *Model) opensHelp(msg tea.KeyPressMsg) bool {
	if !key.Matches(msg, m.keys.Help) {
		return false
	}
	return msg.Text == "" || m.place()&(keymap.InText|keymap.InPrompt|keymap.InFilter) == 0
}

func sameKeys(a, b key.Binding) bool {
	ak, bk := a.Keys(), b.Keys()
	if len(ak) != len(bk) {
		return false
	}
	for i := range ak {
		if ak[i] != bk[i] {
			return false
		}
	}
	return true
}
