package tui

import (
	"context"
	"strings"
	"time"

	"arbiter/internal/statsview"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The stats screen shows the field's figures as charts (internal/
// statsview draws them, as `arbiter stats` prints them): the queue by
// status and age, time to decision, the queue per day, who collides,
// whose units lose, who is overloaded, who votes. The engine aggregates
// them in one read; the screen scrolls them, and reads them again
// whenever the field changes while it is open, saying when it read them.

// statsState is the stats screen's figures and scroll.
type statsState struct {
	loaded bool
	s      model.Stats
	err    error
	top    int
	// at is when the figures were read, on the screen's clock.
	at time.Time
	// lines are the figures drawn at width w, drawn again only when the
	// figures or the width change.
	lines []string
	w     int
}

// statsReader is a desk that aggregates figures: a field; another
// program's file has none.
type statsReader interface {
	Stats(ctx context.Context, since time.Time) (model.Stats, error)
}

type statsLoadedMsg struct {
	s   model.Stats
	err error
}

// openStats shows the stats screen and reads the figures.
func (m *Model) openStats() tea.Cmd {
	m.push(statsScreen{})
	m.stats.top = 0
	return m.loadStats()
}

func (m *Model) loadStats() tea.Cmd {
	r, ok := m.svc.(statsReader)
	if !ok {
		m.stats = statsState{loaded: true, err: errNoStats}
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		s, err := r.Stats(ctx, time.Time{})
		return statsLoadedMsg{s: s, err: err}
	}
}

type noStats struct{}

func (noStats) Error() string {
	return "this file keeps no figures: stats are read from an arbiter field"
}

var errNoStats error = noStats{}

func (m *Model) statsLoaded(msg statsLoadedMsg) tea.Cmd {
	m.stats.loaded, m.stats.s, m.stats.err, m.stats.lines, m.stats.at = true, msg.s, msg.err, nil, m.now()
	return nil
}

// statsFollow reads the figures again, after the field changed, while
// the stats screen is open (in front, or under the help).
func (m *Model) statsFollow() tea.Cmd {
	for _, s := range m.stack {
		if s == (statsScreen{}) {
			return m.loadStats()
		}
	}
	return nil
}

// statsRead says when the figures were read, and that they follow the
// field.
func (m *Model) statsRead(w int) string {
	st := m.styles
	line := "Read at " + m.stats.at.Format("15:04:05") + ", and again as the field changes · " +
		keyOf(m.keys.Refresh) + " reads them now"
	return strings.Join(wrapLines(st.Muted.Render(line), w), "\n")
}

// statsLines are the figures drawn at width w.
func (m *Model) statsLines(w int) []string {
	if m.stats.lines != nil && m.stats.w == w {
		return m.stats.lines
	}
	st := m.styles
	m.stats.lines = strings.Split(statsview.Render(m.stats.s, w, statsview.Styles{Title: st.Title, Label: st.Label,
		Muted: st.Muted, Bar: st.Key, Warn: st.Warn}), "\n")
	m.stats.w = w
	return m.stats.lines
}

// statsScreen is the field's figures.
type statsScreen struct{}

func (statsScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	s := &m.stats
	page := max(1, m.bodyHeight()-1)
	switch {
	case key.Matches(msg, k.Back, k.Stats):
		m.pop()
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.push(helpScreen{under: statsScreen{}})
	case key.Matches(msg, k.Refresh):
		return m.loadStats()
	case key.Matches(msg, k.Inbox):
		return m.openInbox()
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
		s.top = 1 << 30
	}
	if s.loaded && s.err == nil {
		read := strings.Count(m.statsRead(m.width), "\n") + 1
		s.top = max(0, min(s.top, len(m.statsLines(m.width))-(m.bodyHeight()-read)))
	}
	return nil
}

func (statsScreen) update(*Model, tea.Msg) tea.Cmd { return nil }

func (statsScreen) help(m *Model) []key.Binding {
	k := m.keys
	return []key.Binding{k.Down, k.Up, k.PageDown, k.Refresh, k.Back, k.Quit}
}

func (statsScreen) view(m *Model, w, h int) string {
	st := m.styles
	s := &m.stats
	switch {
	case !s.loaded:
		return st.Muted.Render("Reading the field's figures…")
	case s.err != nil:
		return st.Error.Render("No figures: " + plainError(s.err))
	}
	read := m.statsRead(w)
	h -= strings.Count(read, "\n") + 1
	lines := m.statsLines(w)
	top := max(0, min(s.top, len(lines)-h))
	return read + "\n" + strings.Join(lines[top:min(len(lines), top+h)], "\n")
}
