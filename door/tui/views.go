package tui

import (
	"slices"
	"strings"

	"arbiter/internal/queueview"
	"arbiter/model"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Views are the config file's named filters of the queue (views:, read
// by internal/queueview), shown as tabs above it and switched with
// next_view and prev_view, as gh-dash's sections are. The first tab is
// the queue itself: what waits for people. A view asks the store for
// its statuses and for what is the person's turn; its types, owner and
// deadline the screen keeps row by row.

// waitingView is the first tab: the queue as it is without a view.
var waitingView = queueview.View{Name: "Waiting"}

// views are the tabs: the queue, then the config file's views.
func (m *Model) views() []queueview.View {
	return append([]queueview.View{waitingView}, m.opt.Views...)
}

// switchView shows the queue through the view delta tabs away.
func (m *Model) switchView(delta int) tea.Cmd {
	vs := m.views()
	if len(vs) == 1 {
		return m.say("No views are set: the config file's views: names them (README, Configuration).")
	}
	q := &m.queue
	q.tab = (q.tab + delta + len(vs)) % len(vs)
	v := vs[q.tab]
	q.viewOf, q.all, q.mineOnly = v, v.All, v.Mine
	q.cursor, q.top, q.opened = 0, 0, false
	q.rows, q.loaded = nil, false // "Reading the field…", not the rows of the tab before
	return m.reloadQueue()
}

// sift keeps the rows the view keeps by type, owner and deadline.
func (q queue) sift(rows []model.ConflictSummary, viewer string, m *Model) []model.ConflictSummary {
	v := q.viewOf
	if !v.Sifts() {
		return rows
	}
	now := m.now()
	return slices.DeleteFunc(slices.Clone(rows), func(r model.ConflictSummary) bool { return !v.Match(r, viewer, now) })
}

// tabsLine is the views as tabs, the one shown marked, fitted to w.
func (m *Model) tabsLine(w int) string {
	st := m.styles
	var parts []string
	for i, v := range m.views() {
		t := " " + lineOf(v.Name) + " "
		if i == m.queue.tab {
			parts = append(parts, st.Selected.Render(t))
		} else {
			parts = append(parts, st.Muted.Render(t))
		}
	}
	line := strings.Join(parts, " ") + st.Muted.Render("  "+keyOf(m.keys.PrevView)+" "+keyOf(m.keys.NextView)+" switch views")
	return ansi.Truncate(line, w, "…")
}

// hasViews reports whether the config file set views, so that the queue
// shows tabs.
func (m *Model) hasViews() bool { return len(m.opt.Views) > 0 }
