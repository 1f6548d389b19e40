package tui

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"arbiter/internal/keymap"

	"charm.land/glamour/v2"
)

// maxRenderBytes bounds what glamour is given: larger units show their
// first part with a note, and the raw text stays one key away.
const maxRenderBytes = 64 << 10

// mdKey identifies one rendering of a unit.
type mdKey struct {
	unit  string
	width int
	theme string
}

// formatted is a unit's rendering as the screen's cache holds it: the
// whole text, or its head while the rest is formatted (partial). No text
// yet means requested.
type formatted struct {
	text    string
	partial bool
}

// markdown renders unit content with glamour, with renderers per (width,
// theme) kept for reuse. A renderer renders one text at a time, so the
// idle ones wait in a pool and two units render side by side on two.
// Rendering happens in commands; the results come back as renderedMsg and
// Update stores them in the model's cache.
type markdown struct {
	mu   sync.Mutex
	idle map[string][]*glamour.TermRenderer
	// budget is how long formatting one unit may take: renderBudget
	// (tests that must see everything formatted give it more).
	budget time.Duration
	// rawKey names the key that shows the raw text, in the notes on what
	// could not be formatted.
	rawKey string
}

func newMarkdown() *markdown {
	return &markdown{idle: map[string][]*glamour.TermRenderer{}, budget: renderBudget, rawKey: keyOf(keymap.Default().Raw)}
}

// Render turns untrusted markdown into styled terminal text for a pane of
// the given width. The text is sanitised before glamour sees it, and
// glamour's output keeps only colour and style sequences (no hyperlinks
// or other escapes an agent could smuggle through a link). No line is
// wider than width: the pane shows the lines as they are.
//
// Formatting is bounded in time (mdguard.go): text nested deeper than
// maxNesting is shown as plain text, and so is what is left when
// renderBudget runs out, each with a note.
func (m *markdown) Render(content string, width int, theme string) string {
	return m.renderWith(content, width, theme, pieceLines)
}

// renderWith is Render with a first piece of first lines (see pieces).
func (m *markdown) renderWith(content string, width int, theme string, first int) string {
	j := m.begin(content, width, theme, first)
	m.format(j, -1)
	return j.result()
}

// RenderHead is Render in two steps, for a pane that shows lines lines:
// it formats the start of content until the output has at least that
// many lines and returns it, with the rest of the work for Finish (nil
// when nothing is left). The first piece ends at a block near lines
// lines of markdown, so that the first step formats little more than
// the pane shows.
func (m *markdown) RenderHead(content string, width int, theme string, lines int) (string, *formatJob) {
	j := m.begin(content, width, theme, max(1, lines))
	m.format(j, lines)
	if j.finished() {
		return j.result(), nil
	}
	return j.result(), j
}

// Finish formats what RenderHead left and returns the whole text: the
// head it returned, and the rest, as one Render with the same pieces
// would have formatted them. The time budget counts from RenderHead's
// start.
func (m *markdown) Finish(j *formatJob) string {
	m.format(j, -1)
	return j.result()
}

func (m *markdown) render(text string, width int, theme string) (string, error) {
	k := fmt.Sprintf("%d/%s", width, theme)
	m.mu.Lock()
	var r *glamour.TermRenderer
	if idle := m.idle[k]; len(idle) > 0 {
		r, m.idle[k] = idle[len(idle)-1], idle[:len(idle)-1]
	}
	m.mu.Unlock()
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(theme), glamour.WithWordWrap(width))
		if err != nil {
			return "", err
		}
	}
	out, err := r.Render(text)
	m.mu.Lock()
	m.idle[k] = append(m.idle[k], r)
	m.mu.Unlock()
	return out, err
}

// onlySGR keeps the colour/style sequences (CSI … m) of s and drops
// every other ESC-introduced sequence: CSI, OSC (ended by BEL or ST),
// DCS/SOS/PM/APC (ended by ST), or ESC and the character after it. An ESC
// at the very end or before a newline stays. It scans bytes rather than
// running a regular expression: on a 20 KB unit the expression took as
// long as glamour itself.
func onlySGR(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		n, keep := escapeAt(s)
		switch {
		case n == 0:
			b.WriteByte(0x1b)
			n = 1
		case keep:
			b.WriteString(s[:n])
		}
		s = s[n:]
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// escapeAt measures the sequence at the start of s, which starts with
// ESC: its length (0: no sequence), and whether it sets colour or style.
func escapeAt(s string) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	j := 2
	switch c := s[1]; c {
	case '[': // CSI: parameters, intermediates, a final byte
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':' || s[j] == '?') {
			j++
		}
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1, s[j] == 'm'
		}
		return 2, false
	case ']': // OSC, up to BEL or ST
		for j < len(s) && s[j] != 0x07 && s[j] != 0x1b {
			j++
		}
		if j < len(s) && s[j] == 0x07 {
			j++
		} else if strings.HasPrefix(s[j:], "\x1b\\") {
			j += 2
		}
		return j, false
	case 'P', '_', '^', 'X': // DCS, APC, PM, SOS, up to ST
		for j < len(s) && s[j] != 0x1b {
			j++
		}
		if strings.HasPrefix(s[j:], "\x1b\\") {
			j += 2
		}
		return j, false
	case '\n':
		return 0, false
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	return 1 + size, false
}
