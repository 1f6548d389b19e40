package tui

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"arbiter/internal/safetext"

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
	diff  bool
}

// markdown renders unit content with glamour, one renderer per (width,
// theme) kept for reuse. Rendering happens in commands; the results come
// back as renderedMsg and Update stores them in the model's cache.
type markdown struct {
	mu        sync.Mutex
	renderers map[string]*glamour.TermRenderer
}

func newMarkdown() *markdown { return &markdown{renderers: map[string]*glamour.TermRenderer{}} }

// Render turns untrusted markdown into styled terminal text for a pane of
// the given width. The text is sanitised before glamour sees it, and
// glamour's output keeps only colour and style sequences (no hyperlinks
// or other escapes an agent could smuggle through a link).
func (m *markdown) Render(content string, width int, theme string) string {
	text, cut := safetext.Truncate(safetext.Block(content), maxRenderBytes)
	out, err := m.render(text, width, theme)
	if err != nil {
		out = text
	}
	out = strings.TrimRight(onlySGR(out), "\n ")
	if cut {
		out += "\n\n" + fmt.Sprintf("… shown: the first %d KB of %d KB. Press r for the raw text.",
			maxRenderBytes>>10, len(content)>>10)
	}
	return out
}

func (m *markdown) render(text string, width int, theme string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := fmt.Sprintf("%d/%s", width, theme)
	r, ok := m.renderers[k]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(theme), glamour.WithWordWrap(width))
		if err != nil {
			return "", err
		}
		m.renderers[k] = r
	}
	return r.Render(text)
}

// escapes matches every ESC-introduced sequence; onlySGR keeps the
// colour/style ones (CSI … m) and drops the rest.
var escapes = regexp.MustCompile(`\x1b(\[[0-9;:?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[P_^X][^\x1b]*(\x1b\\)?|.)`)

func onlySGR(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return escapes.ReplaceAllStringFunc(s, func(seq string) string {
		if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
			return seq
		}
		return ""
	})
}
