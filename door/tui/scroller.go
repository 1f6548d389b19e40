package tui

import (
	"strings"

	"arbiter/internal/keymap"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// scroller is a pane's scrolling text: lines laid out once, when the text
// or the width changes, so that drawing a frame only slices the visible
// ones. (A viewport would re-measure and re-wrap every line at each frame,
// which a 20 KB unit makes slow.)
type scroller struct {
	lines  []string
	widths []int // cells of each line, measured once
	off    int
	w, h   int
	// end: the reader went to the end (GotoBottom), and stays there when
	// the text grows, as when a unit's rest arrives after its head.
	end bool
}

// maxWordWrap is the size up to which text is wrapped at word
// boundaries; larger text is cut at the pane's width, which is linear and
// cheap for megabytes.
const maxWordWrap = 256 << 10

// SetContent lays out text: as it is when it was laid out for this width
// already (rendered markdown), or wrapped to the width.
func (s *scroller) SetContent(text string, wrap bool) {
	switch {
	case !wrap:
		s.lines = strings.Split(text, "\n")
	case len(text) <= maxWordWrap:
		s.lines = strings.Split(wordWrap(text, max(1, s.w)), "\n")
	default:
		s.lines = hardWrap(text, max(1, s.w))
	}
	s.widths = make([]int, len(s.lines))
	for i, l := range s.lines {
		w := ansi.StringWidth(l)
		if w > s.w {
			l = ansi.Truncate(l, s.w, "…") // never cut without a sign
			s.lines[i], w = l, ansi.StringWidth(l)
		}
		s.widths[i] = w
	}
	if s.end {
		s.off = len(s.lines)
	}
	s.clamp()
}

// hardWrap cuts each line of plain text into pieces of at most w cells,
// in one pass: measuring what is left of a line after each cut made a
// 1 MB line take minutes.
func hardWrap(text string, w int) []string {
	return strings.Split(ansi.Hardwrap(text, w, true), "\n")
}

func (s *scroller) SetWidth(w int)  { s.w = w }
func (s *scroller) SetHeight(h int) { s.h = h; s.clamp() }
func (s *scroller) Width() int      { return s.w }
func (s *scroller) Height() int     { return s.h }
func (s *scroller) YOffset() int    { return s.off }

func (s *scroller) SetYOffset(n int) { s.off, s.end = n, false; s.clamp() }
func (s *scroller) ScrollUp(n int)   { s.SetYOffset(s.off - n) }
func (s *scroller) ScrollDown(n int) { s.SetYOffset(s.off + n) }
func (s *scroller) PageUp()          { s.ScrollUp(max(1, s.h)) }
func (s *scroller) PageDown()        { s.ScrollDown(max(1, s.h)) }
func (s *scroller) GotoTop()         { s.SetYOffset(0) }
func (s *scroller) GotoBottom()      { s.SetYOffset(len(s.lines)); s.end = true }

func (s *scroller) clamp() {
	s.off = max(0, min(s.off, len(s.lines)-s.h))
}

// Visible is the lines in view and their widths in cells.
func (s *scroller) Visible() ([]string, []int) {
	end := min(len(s.lines), s.off+s.h)
	return s.lines[s.off:end], s.widths[s.off:end]
}

// scrollBy is where a scroll key moves a view whose first line shown is
// top, a page being page lines; the view keeps it within its lines.
func scrollBy(msg tea.KeyPressMsg, k keymap.Map, top, page int) int {
	switch {
	case key.Matches(msg, k.Up):
		return max(0, top-1)
	case key.Matches(msg, k.Down):
		return top + 1
	case key.Matches(msg, k.PageUp):
		return max(0, top-page)
	case key.Matches(msg, k.PageDown):
		return top + page
	case key.Matches(msg, k.Bottom):
		return 1 << 30
	}
	return 0
}
