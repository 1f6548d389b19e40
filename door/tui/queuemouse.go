package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The queue and the mouse: the wheel moves the cursor, a click selects
// a row, a second click on it opens it.

// queueWheel moves the cursor three rows.
func (m *Model) queueWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if msg.Mouse().Button == tea.MouseWheelUp {
		m.queue.move(-3, m.queueRows())
	} else {
		m.queue.move(3, m.queueRows())
	}
	return m.maybeMore()
}

// click is the last mouse click on the queue, to tell a double click:
// a second click on row while armed is one.
type click struct {
	row, n int
	armed  bool
}

// clickExpiredMsg disarms click n: a second click now is a new click.
type clickExpiredMsg struct{ n int }

// doubleClick is how close two clicks on one row are to open it.
const doubleClick = 400 * time.Millisecond

// queueClick selects the row clicked; a second click on it soon after
// opens it.
func (m *Model) queueClick(msg tea.MouseClickMsg) tea.Cmd {
	q := &m.queue
	if msg.Mouse().Button != tea.MouseLeft || q.editing || len(q.rows) == 0 {
		return nil
	}
	// The header line, the counts line, the filter's line when shown,
	// then the table's header: rows start below them.
	first := 3
	if q.editing || q.search != "" {
		first++
	}
	if q.tabs {
		first++
	}
	i := q.top + msg.Mouse().Y - first
	if msg.Mouse().X >= m.queueWidth() {
		return nil // the preview
	}
	if i < q.top || i >= len(q.rows) || i >= q.top+m.queueRows() {
		return nil
	}
	again := m.lastClick.armed && m.lastClick.row == i
	q.cursor = i
	n := m.lastClick.n + 1
	if again {
		m.lastClick = click{row: -1, n: n}
		return m.open(q.rows[i].ID)
	}
	m.lastClick = click{row: i, n: n, armed: true}
	return m.after(doubleClick, clickExpiredMsg{n: n})
}

// clickExpired disarms the last click once a double click's time is
// past.
func (m *Model) clickExpired(msg clickExpiredMsg) {
	if msg.n == m.lastClick.n {
		m.lastClick.armed = false
	}
}
