package tui

import (
	"fmt"
	"strings"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// queue is the list of conflicts waiting for people.
type queue struct {
	rows    []model.ConflictSummary
	counts  map[model.ConflictStatus]int
	cursor  int
	top     int
	all     bool
	sort    model.Sort
	search  string
	filter  textinput.Model
	editing bool
	loaded  bool
	opened  bool // the first load placed the cursor
	more    bool
	err     error
	// lines caches rendered rows; prepare fills it in Update so View
	// only joins strings.
	lines map[lineKey]string
	// counts line, cached the same way.
	countsText string
}

// lineKey is everything a rendered row depends on.
type lineKey struct {
	id, age, theme string
	version        int64
	votes, width   int
}

func newQueue() queue {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "filter by id, type, agent or description"
	f.CharLimit = 200
	return queue{filter: f, sort: model.SortAge}
}

// query is what the queue shows now.
func (q queue) query(limit int) model.ListQuery {
	lq := model.ListQuery{Sort: q.sort, Search: q.search, Limit: limit}
	if !q.all {
		lq.Statuses = model.ReviewStatuses
	}
	return lq
}

// selected is the conflict under the cursor.
func (q queue) selected() (model.ConflictSummary, bool) {
	if q.cursor < 0 || q.cursor >= len(q.rows) {
		return model.ConflictSummary{}, false
	}
	return q.rows[q.cursor], true
}

// setRows replaces the rows, keeping the cursor on the same conflict when
// it is still there. The first load opens on the oldest escalated one.
func (q *queue) setRows(rows []model.ConflictSummary, limit int) {
	keep := ""
	if s, ok := q.selected(); ok {
		keep = s.ID
	}
	q.rows, q.loaded, q.more = rows, true, len(rows) >= limit
	q.cursor = 0
	switch {
	case !q.opened:
		// The oldest escalated conflict, once it is loaded.
		q.opened = !q.more
		for i, r := range rows {
			if r.Status == model.StatusEscalated {
				q.cursor, q.opened = i, true
				break
			}
		}
	case keep != "":
		for i, r := range rows {
			if r.ID == keep {
				q.cursor = i
				break
			}
		}
	}
}

func (q *queue) move(delta, visible int) {
	q.cursor = max(0, min(len(q.rows)-1, q.cursor+delta))
	q.scrollTo(visible)
}

func (q *queue) scrollTo(visible int) {
	if visible <= 0 {
		return
	}
	if q.cursor < q.top {
		q.top = q.cursor
	}
	if q.cursor >= q.top+visible {
		q.top = q.cursor - visible + 1
	}
	q.top = max(0, min(q.top, max(0, len(q.rows)-visible)))
}

func (m *Model) queueKey(msg tea.KeyPressMsg) tea.Cmd {
	q := &m.queue
	k := m.keys
	if q.editing {
		return m.filterKey(msg)
	}
	rows := m.queueRows()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.fullHelp = true
	case key.Matches(msg, k.Up):
		q.move(-1, rows)
	case key.Matches(msg, k.Down):
		q.move(1, rows)
		return m.maybeMore()
	case key.Matches(msg, k.Top):
		q.move(-len(q.rows), rows)
	case key.Matches(msg, k.Bottom):
		q.move(len(q.rows), rows)
		return m.maybeMore()
	case key.Matches(msg, k.PageUp):
		q.move(-rows, rows)
	case key.Matches(msg, k.PageDown):
		q.move(rows, rows)
		return m.maybeMore()
	case key.Matches(msg, k.Filter):
		q.editing = true
		q.filter.SetValue(q.search)
		return q.filter.Focus()
	case key.Matches(msg, k.Back):
		if q.search != "" {
			q.search = ""
			q.filter.SetValue("")
			return m.reloadQueue()
		}
	case key.Matches(msg, k.Sort):
		if q.sort == model.SortAge {
			q.sort = model.SortType
		} else {
			q.sort = model.SortAge
		}
		return m.reloadQueue()
	case key.Matches(msg, k.AllStatuses):
		q.all = !q.all
		return m.reloadQueue()
	case key.Matches(msg, k.Refresh):
		return m.reloadQueue()
	case key.Matches(msg, k.Open):
		if s, ok := q.selected(); ok {
			return m.open(s.ID)
		}
	}
	return nil
}

// filterKey is a key press while the filter is typed: the queue follows
// each change.
func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	q := &m.queue
	switch {
	case key.Matches(msg, m.keys.Back):
		q.editing, q.search = false, ""
		q.filter.SetValue("")
		q.filter.Blur()
		return m.reloadQueue()
	case key.Matches(msg, m.keys.KeepFilter):
		q.editing = false
		q.filter.Blur()
		return nil
	}
	var cmd tea.Cmd
	q.filter, cmd = q.filter.Update(msg)
	if q.filter.Value() != q.search {
		q.search = q.filter.Value()
		return tea.Batch(cmd, m.reloadQueue())
	}
	return cmd
}

// queueWheel moves the cursor three rows.
func (m *Model) queueWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if msg.Mouse().Button == tea.MouseWheelUp {
		m.queue.move(-3, m.queueRows())
	} else {
		m.queue.move(3, m.queueRows())
	}
	return m.maybeMore()
}

// queueHelp is the footer of the queue.
func (m *Model) queueHelp() []key.Binding {
	k := m.keys
	if m.queue.editing {
		return []key.Binding{k.KeepFilter, k.Back}
	}
	return []key.Binding{k.Up, k.Down, k.Open, k.Filter, k.Sort, k.AllStatuses, k.Help, k.Quit}
}

func (m *Model) queueLoaded(msg queueLoadedMsg) tea.Cmd {
	if msg.seq != m.queueSeq {
		return nil // a later request is on its way
	}
	m.queue.err = msg.err
	if msg.err != nil {
		return nil
	}
	m.queue.counts = msg.counts
	if m.version == 0 {
		m.version = msg.version
	}
	m.queue.setRows(msg.rows, msg.limit)
	m.queue.scrollTo(m.queueRows())
	if m.queue.more && msg.limit < queuePage { // the first page: the rest of a whole one
		return m.reloadQueue()
	}
	return nil
}

// queueRows is how many rows of the queue fit.
func (m *Model) queueRows() int {
	h := m.bodyHeight() - 2
	if m.queue.editing || m.queue.search != "" {
		h--
	}
	return max(1, h)
}

// maybeMore loads the next page when the cursor nears the end of what is
// loaded.
func (m *Model) maybeMore() tea.Cmd {
	if m.queue.more && m.queue.cursor >= len(m.queue.rows)-m.queueRows() {
		m.queue.more = false
		return m.loadQueue(m.queue.query(len(m.queue.rows) + queuePage))
	}
	return nil
}

// maxCachedLines bounds the row cache; past it, it starts afresh.
const maxCachedLines = 8192

// prepare renders, ahead of View, the rows that h lines show and the
// counts line, reusing what earlier frames rendered.
func (q *queue) prepare(st Styles, w, h int, now time.Time) {
	if q.lines == nil || len(q.lines) > maxCachedLines {
		q.lines = make(map[lineKey]string, 256)
	}
	q.countsText = q.countsLine(st, w)
	cols := queueColumns(w)
	for i := q.top; i < min(len(q.rows), q.top+h); i++ {
		k := q.key(st, i, w, now)
		if _, ok := q.lines[k]; !ok {
			q.lines[k] = cols.row(st, q.rows[i], now)
		}
	}
}

func (q queue) key(st Styles, i, w int, now time.Time) lineKey {
	r := q.rows[i]
	k := lineKey{id: r.ID, age: age(now, r.DetectedAt), theme: st.Theme.Name(), version: r.Version, width: w}
	if r.Tally != nil {
		k.votes = r.Tally.Total()<<16 | r.Tally.Quorum
	}
	return k
}

// line is row i as prepare rendered it (or rendered now, if it did not).
func (q queue) line(st Styles, cols columns, i, w int, now time.Time) string {
	if l, ok := q.lines[q.key(st, i, w, now)]; ok {
		return l
	}
	return cols.row(st, q.rows[i], now)
}

// view draws the queue in w × h cells.
func (q queue) view(st Styles, k keymap.Map, w, h int, now time.Time) string {
	var b strings.Builder
	if q.countsText != "" {
		b.WriteString(q.countsText)
	} else {
		b.WriteString(q.countsLine(st, w))
	}
	b.WriteByte('\n')
	if q.editing || q.search != "" {
		if q.editing {
			b.WriteString(q.filter.View())
		} else {
			b.WriteString(st.Filter.Render("/ " + safetext.Line(q.search)))
		}
		b.WriteByte('\n')
		h--
	}
	h--
	switch {
	case q.err != nil:
		b.WriteString(st.Error.Render("Could not read the queue: " + safetext.Line(plainError(q.err))))
		return b.String()
	case !q.loaded:
		b.WriteString(st.Muted.Render("Reading the field…"))
		return b.String()
	case len(q.rows) == 0:
		b.WriteString(q.emptyView(st, k))
		return b.String()
	}
	cols := queueColumns(w)
	b.WriteString(st.Label.Render(cols.header()))
	b.WriteByte('\n')
	h--
	end := min(len(q.rows), q.top+h)
	for i := q.top; i < end; i++ {
		line := q.line(st, cols, i, w, now)
		if i == q.cursor {
			plain := "▸" + ansi.Strip(line)[len(" "):]
			line = st.Selected.Render(cell(plain, w))
		}
		b.WriteString(line)
		if i < end-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (q queue) emptyView(st Styles, k keymap.Map) string {
	switch {
	case q.search != "":
		return st.Muted.Render("No conflict matches “" + safetext.Line(q.search) + "”. Press " + keyOf(k.Back) + " to clear the filter.")
	case q.all:
		return st.Muted.Render("This field has no conflicts yet.")
	}
	return st.Success.Render("Nothing waits for you.") + " " +
		st.Muted.Render("No conflict is escalated or put to a vote. Press "+keyOf(k.AllStatuses)+" to see every status and the resolved history.")
}

func (q queue) countsLine(st Styles, w int) string {
	var parts []string
	for _, s := range model.ConflictStatuses {
		n := q.counts[s]
		style := st.Muted
		if n > 0 {
			if ss, ok := st.Status[string(s)]; ok {
				style = ss
			}
		}
		parts = append(parts, style.Render(fmt.Sprintf("%s %d", strings.ReplaceAll(string(s), "_", " "), n)))
	}
	scope := "waiting for people"
	if q.all {
		scope = "all statuses"
	}
	line := strings.Join(parts, st.Muted.Render(" · ")) + st.Muted.Render("   showing "+scope+", by "+string(q.sort))
	return ansi.Truncate(line, w, "…")
}
