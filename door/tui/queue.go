package tui

import (
	"slices"

	"arbiter/internal/keymap"
	"arbiter/internal/queueview"
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
	// mineOnly shows only what is the person's turn.
	mineOnly bool
	// turn says, of each row, whether it is the person's turn;
	// decided, which conflicts the decisions file decides already.
	turn    map[string]model.Turn
	decided map[string]string
	// personal: the rows come in the viewer's order (what is theirs
	// and what is due soon first); viewer is who that is.
	personal bool
	viewer   string
	// idWidth is the widest id the table shows, so no id is cut.
	idWidth int
	// oneAuthor: every row's two units have one and the same author.
	oneAuthor bool
	// beside: the preview is beside the table, and names both authors.
	beside bool
	// lines caches rendered rows; prepare fills it in Update so View
	// only joins strings.
	lines map[lineKey]string
	// counts line, and the views' tabs, cached the same way; countsFor
	// is what the counts line was drawn for, loads counts the loads.
	countsText, tabsText string
	countsFor            countsKey
	loads                int
	// tab is the tab shown (views.go), viewOf its view; tabs: the
	// config file set views, so the queue shows tabs.
	tab    int
	viewOf queueview.View
	tabs   bool
	// fetched is how many rows the store gave, before the view kept
	// those it keeps.
	fetched int
}

func newQueue() queue {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "filter: words of ids, status, type, agents, description or the units' text"
	f.CharLimit = 200
	f.SetWidth(80)
	return queue{filter: f, sort: model.SortAge}
}

// noAgents reports whether the table leaves out the AGENTS column: every
// row has one author, or the preview names them.
func (q queue) noAgents() bool { return q.oneAuthor || q.beside }

// rowID is the id of the conflict under the cursor, "" for none.
func (q queue) rowID() string {
	if s, ok := q.selected(); ok {
		return s.ID
	}
	return ""
}

// mine reports whether row i is the person's turn.
func (q queue) mine(i int) bool { return q.turn[q.rows[i].ID] != model.TurnNone }

// query is what the queue shows now.
func (q queue) query(limit int) model.ListQuery {
	lq := model.ListQuery{Sort: q.sort, Search: q.search, Limit: limit}
	if !q.all {
		lq.Statuses = q.viewOf.List()
	}
	return lq
}

// reviewOnly reports whether the queue shows only statuses that wait for
// people: the store orders only those for the person at the screen.
func (q queue) reviewOnly() bool {
	if q.all {
		return false
	}
	for _, s := range q.viewOf.List() {
		if !slices.Contains(model.ReviewStatuses, s) {
			return false
		}
	}
	return true
}

// rowsShown is how many rows fit in a body of h lines: below the counts
// line, the tabs and the filter when shown, and the table's header; above
// the line that says which rows show, when not all of them do.
func (q queue) rowsShown(h int) int {
	h -= 2
	if q.tabs {
		h--
	}
	if q.editing || q.search != "" {
		h--
	}
	if len(q.rows) > h || q.more {
		h--
	}
	return max(1, h)
}

// selected is the conflict under the cursor.
func (q queue) selected() (model.ConflictSummary, bool) {
	if q.cursor < 0 || q.cursor >= len(q.rows) {
		return model.ConflictSummary{}, false
	}
	return q.rows[q.cursor], true
}

// setRows replaces the rows, keeping the cursor on the same conflict when
// it is still there, else on the next one of the person's turn after
// where it was. The first load opens on the first that is their turn (the
// queue lists those first), or the oldest escalated one.
func (q *queue) setRows(rows []model.ConflictSummary) {
	keep, at := "", q.cursor
	if s, ok := q.selected(); ok {
		keep = s.ID
	}
	q.rows, q.loaded = rows, true
	q.cursor = 0
	q.idWidth = 0
	q.oneAuthor = len(rows) > 0
	for _, r := range rows {
		q.idWidth = max(q.idWidth, ansi.StringWidth(lineOf(r.ID)))
		q.oneAuthor = q.oneAuthor && r.AgentA == rows[0].AgentA && r.AgentB == rows[0].AgentA
	}
	switch {
	case !q.opened:
		q.opened = !q.more
		for i, r := range rows {
			if q.turn[r.ID] != model.TurnNone || (len(q.turn) == 0 && r.Status == model.StatusEscalated) {
				q.cursor, q.opened = i, true
				break
			}
		}
	case keep != "":
		i := slices.IndexFunc(rows, func(r model.ConflictSummary) bool { return r.ID == keep })
		if i >= 0 {
			q.cursor = i
			return
		}
		q.cursor = max(0, min(at, len(rows)-1))
		q.next(func(string) bool { return false }, true)
	}
}

// next moves the cursor to the next row of the person's turn, not
// skipped, from the cursor (or after it), going round to the top; it
// stays when there is none.
func (q *queue) next(skip func(id string) bool, here bool) {
	n := len(q.rows)
	from := q.cursor + 1
	if here {
		from = q.cursor
	}
	for k := range n {
		i := (from + k) % n
		if q.mine(i) && !skip(q.rows[i].ID) {
			q.cursor = i
			return
		}
	}
}

// skipTo moves the cursor on to the first row of the person's turn,
// from the cursor on, that has no decision waiting and is not the
// conflict just decided: after a decision, the next one still waiting,
// whether or not the queue was read again since.
func (q *queue) skipTo(visible int, pending func(string) bool, decided string) {
	if len(q.rows) == 0 {
		return
	}
	q.next(func(id string) bool { return id == decided || pending(id) }, true)
	q.scrollTo(visible)
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
		return m.quit()
	case m.opensHelp(msg):
		m.openHelp()
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
		switch {
		case len(m.marks) > 0:
			m.marks = map[string]bool{}
		case q.search != "":
			q.search = ""
			q.filter.SetValue("")
			return m.reloadQueue()
		}
	case key.Matches(msg, k.KeepA, k.KeepB, k.Dismiss, k.Approve, k.SendBack):
		return m.quick(quickKindOf(msg, k), m.queueTargets())
	case key.Matches(msg, k.Stats):
		return m.openStats()
	case key.Matches(msg, k.Inbox):
		return m.openInbox()
	case key.Matches(msg, k.PreviewPane):
		return m.togglePreview()
	case key.Matches(msg, k.NextView):
		return m.switchView(1)
	case key.Matches(msg, k.PrevView):
		return m.switchView(-1)
	case key.Matches(msg, k.Synthesize):
		if s, ok := q.selected(); ok {
			m.synthAfter = s.ID
			return m.open(s.ID)
		}
	case key.Matches(msg, k.Mark):
		if s, ok := q.selected(); ok && !m.isPending(s.ID) {
			if m.marks[s.ID] {
				delete(m.marks, s.ID)
			} else {
				m.marks[s.ID] = true
			}
			q.move(1, rows)
		}
	case key.Matches(msg, k.MarkAll):
		// Every row shown but those whose decision waits to be written.
		all := len(q.rows) > 0
		for _, r := range q.rows {
			all = all && (m.marks[r.ID] || m.isPending(r.ID))
		}
		m.marks = map[string]bool{}
		if !all {
			for _, r := range q.rows {
				if !m.isPending(r.ID) {
					m.marks[r.ID] = true
				}
			}
		}
	case key.Matches(msg, k.MineOnly):
		q.mineOnly = !q.mineOnly
		q.opened = false
		return m.reloadQueue()
	case key.Matches(msg, k.Undo):
		return m.undo()
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
	case m.opensHelp(msg):
		m.openHelp()
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

// queueHelp is the footer of the queue: the quick decisions when the row
// under the cursor (or a mark) is the person's to decide.
func (m *Model) queueHelp() []key.Binding {
	k := m.keys
	q := m.queue
	if q.editing {
		return []key.Binding{k.KeepFilter, k.Back}
	}
	out := []key.Binding{k.Open}
	if m.canDecide() == "" && m.queueDecides() {
		out = append(out, k.KeepA, k.KeepB, k.Dismiss)
	}
	out = append(out, k.Stats)
	if m.hasViews() {
		out = append(out, k.NextView)
	}
	if m.width >= previewMinWidth {
		out = append(out, k.PreviewPane)
	}
	out = append(out, k.Mark, k.Filter, k.MineOnly, k.AllStatuses, k.Quit, k.Up, k.Down)
	return out
}

// queueDecides reports whether a quick decision from the queue is the
// person's to make on one of its targets: a marked row, else the row
// under the cursor, whose turn it is.
func (m *Model) queueDecides() bool {
	for _, id := range m.queueTargets() {
		if m.queue.turn[id] != model.TurnNone {
			return true
		}
	}
	return false
}

// queueTargets are the conflicts a quick decision in the queue is on:
// the marked rows, else the row under the cursor.
func (m *Model) queueTargets() []string {
	var out []string
	for _, r := range m.queue.rows {
		if m.marks[r.ID] && !m.isPending(r.ID) {
			out = append(out, r.ID)
		}
	}
	if len(out) > 0 {
		return out
	}
	if s, ok := m.queue.selected(); ok && !m.isPending(s.ID) {
		return []string{s.ID}
	}
	return nil
}

// quickKindOf is the quick decision a key press asks for.
func quickKindOf(msg tea.KeyPressMsg, k keymap.Map) quickKind {
	switch {
	case key.Matches(msg, k.KeepA):
		return quickKeepA
	case key.Matches(msg, k.KeepB):
		return quickKeepB
	case key.Matches(msg, k.Approve):
		return quickApprove
	case key.Matches(msg, k.SendBack):
		return quickRework
	}
	return quickDismiss
}

func (m *Model) queueLoaded(msg queueLoadedMsg) tea.Cmd {
	if msg.seq != m.queueSeq {
		return nil // a later request is on its way
	}
	m.queue.err = msg.err
	news := m.takeNews(msg.since, msg.news)
	if m.version == 0 && msg.err == nil {
		m.version = msg.version
	}
	watching := news
	if !m.watching {
		m.watching = true
		// From the version the queue shows; what the field holds of the
		// person's is read after it, so that a sweep writing it later is a
		// change the watch sees.
		watching = tea.Batch(news, watch(m.ctx, m.svc, m.version), m.heldReport())
	}
	if msg.err != nil {
		return watching
	}
	m.queue.counts = msg.counts
	m.queue.loads++
	m.queue.turn = map[string]model.Turn{}
	m.queue.personal, m.queue.viewer = m.me.ID != "", m.me.ID
	if m.me.ID != "" && m.canDecide() == "" {
		for _, r := range msg.rows {
			m.queue.turn[r.ID] = model.TurnOf(m.policy, m.me, r, msg.voted[r.ID])
		}
	}
	m.queue.decided = msg.decided
	m.queue.fetched, m.queue.more = len(msg.rows), len(msg.rows) >= msg.limit
	rows := m.queue.sift(msg.rows, m.me.ID, m)
	m.queue.setRows(rows)
	if m.isPending(m.queue.rowID()) {
		m.queue.next(m.isPending, false)
	}
	m.queue.scrollTo(m.queueRows())
	switch {
	case m.queue.more && msg.limit < queuePage: // the first page: the rest of a whole one
		return tea.Batch(watching, m.reloadQueue())
	case m.queue.more && m.queue.viewOf.Sifts() && len(rows) <= m.queueRows():
		// The view kept too few of them to fill the screen: more.
		m.queue.more = false
		return tea.Batch(watching, m.loadQueue(m.queue.fetched+queuePage))
	}
	return watching
}

// queueRows is how many rows of the queue fit.
func (m *Model) queueRows() int { return m.queue.rowsShown(m.bodyHeight()) }

// maybeMore loads the next page when the cursor nears the end of what is
// loaded.
func (m *Model) maybeMore() tea.Cmd {
	if m.queue.more && m.queue.cursor >= len(m.queue.rows)-m.queueRows() {
		m.queue.more = false
		return m.loadQueue(m.queue.fetched + queuePage)
	}
	return nil
}

// queueScreen is the queue of conflicts waiting for people.
type queueScreen struct{}

func (queueScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd { return m.queueKey(msg) }
func (queueScreen) help(m *Model) []key.Binding               { return m.queueHelp() }

func (queueScreen) place(m *Model) keymap.Context {
	if m.queue.editing {
		return keymap.InFilter
	}
	return keymap.InQueue
}

func (queueScreen) view(m *Model, w, h int) string {
	if !m.previewShown() {
		return m.queue.view(m.styles, m.keys, m.marks, m.isPending, w, h, m.now())
	}
	pw := m.previewWidth()
	return beside(m.queue.view(m.styles, m.keys, m.marks, m.isPending, m.queueWidth(), h, m.now()), w-pw, m.previewView(pw, h))
}

func (queueScreen) prepare(m *Model) {
	m.queue.beside = m.previewShown()
	if m.queue.tabs {
		m.queue.tabsText = m.tabsLine(m.queueWidth())
	}
	m.queue.prepare(m.styles, m.marks, m.isPending, m.queueWidth(), m.queueRows(), m.now())
	m.preparePreview()
}

func (queueScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		return m.queueWheel(msg)
	case tea.MouseClickMsg:
		return m.queueClick(msg)
	}
	if m.queue.editing {
		m.queue.filter, cmd = m.queue.filter.Update(msg)
	}
	return cmd
}
