package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"arbiter/internal/keymap"
	"arbiter/internal/queueview"
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

// lineKey is everything a rendered row depends on.
type lineKey struct {
	id, age, theme string
	version        int64
	votes, width   int
	flag           rune
	idWidth        int
	// oneAuthor: every row's units have one author, so no AGENTS column.
	oneAuthor bool
	// due is the route's time left as shown, and whether it is urgent.
	due    string
	urgent bool
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

// queueWheel moves the cursor three rows.
func (m *Model) queueWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if msg.Mouse().Button == tea.MouseWheelUp {
		m.queue.move(-3, m.queueRows())
	} else {
		m.queue.move(3, m.queueRows())
	}
	return m.maybeMore()
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
	if m.version == 0 && msg.err == nil {
		m.version = msg.version
	}
	var watching tea.Cmd
	if !m.watching {
		m.watching = true
		watching = watch(m.ctx, m.svc, m.version) // from the version the queue shows
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

// maxCachedLines bounds the row cache; past it, it starts afresh.
const maxCachedLines = 8192

// prepare renders, ahead of View, the rows that h lines show and the
// counts line, reusing what earlier frames rendered.
func (q *queue) prepare(st Styles, marks map[string]bool, pending func(string) bool, w, h int, now time.Time) {
	if q.lines == nil || len(q.lines) > maxCachedLines {
		q.lines = make(map[lineKey]string, 256)
	}
	if k := q.countsKey(st, len(marks), w); k != q.countsFor || q.countsText == "" {
		q.countsText, q.countsFor = q.countsLine(st, len(marks), w), k
	}
	cols := queueColumns(w, q.idWidth, q.noAgents())
	for i := q.top; i < min(len(q.rows), q.top+h); i++ {
		k := q.key(st, marks, pending, i, w, now)
		if _, ok := q.lines[k]; !ok {
			q.lines[k] = cols.row(st, q.rows[i], k.flag, len(q.turn) > 0, q.viewer, now)
		}
	}
}

// flag is the mark a row carries: decided and waiting to be written,
// marked, decided in the decisions file, the person's turn, or none.
func (q queue) flag(marks map[string]bool, pending func(string) bool, i int) rune {
	id := q.rows[i].ID
	switch {
	case pending != nil && pending(id):
		return '⋯'
	case marks[id]:
		return '✓'
	case q.decided[id] != "":
		return '↷'
	case q.mine(i):
		return '●'
	}
	return ' '
}

func (q queue) key(st Styles, marks map[string]bool, pending func(string) bool, i, w int, now time.Time) lineKey {
	r := q.rows[i]
	k := lineKey{id: r.ID, age: age(now, r.DetectedAt), theme: st.Theme.Name(), version: r.Version, width: w,
		flag: q.flag(marks, pending, i), idWidth: q.idWidth, oneAuthor: q.noAgents()}
	if r.Tally != nil {
		k.votes = r.Tally.Total()<<16 | r.Tally.Quorum
	}
	if r.Route != nil {
		k.due, k.urgent = r.Route.DueIn(now), r.Route.Urgent(now)
	}
	return k
}

// line is row i as prepare rendered it (or rendered now, if it did not).
func (q queue) line(st Styles, cols columns, marks map[string]bool, pending func(string) bool, i, w int, now time.Time) string {
	k := q.key(st, marks, pending, i, w, now)
	if l, ok := q.lines[k]; ok {
		return l
	}
	return cols.row(st, q.rows[i], k.flag, len(q.turn) > 0, q.viewer, now)
}

// view draws the queue in w × h cells.
func (q queue) view(st Styles, k keymap.Map, marks map[string]bool, pending func(string) bool, w, h int, now time.Time) string {
	var b strings.Builder
	if q.countsText != "" {
		b.WriteString(q.countsText)
	} else {
		b.WriteString(q.countsLine(st, len(marks), w))
	}
	b.WriteByte('\n')
	if q.tabs {
		b.WriteString(q.tabsText + "\n")
	}
	if q.editing || q.search != "" {
		if q.editing {
			b.WriteString(q.filter.View())
		} else {
			b.WriteString(st.Filter.Render("/ " + safetext.Line(q.search)))
		}
		b.WriteByte('\n')
	}
	switch {
	case q.err != nil:
		b.WriteString(st.Error.Render("Could not read the queue: " + safetext.Line(plainError(q.err))))
		return b.String()
	case !q.loaded:
		b.WriteString(st.Muted.Render("Reading the field…"))
		return b.String()
	case len(q.rows) == 0:
		b.WriteString(strings.Join(wrapLines(q.emptyView(st, k), w), "\n"))
		return b.String()
	}
	cols := queueColumns(w, q.idWidth, q.noAgents())
	b.WriteString(st.Label.Render(cols.header()))
	rows := q.rowsShown(h)
	end := min(len(q.rows), q.top+rows)
	for i := q.top; i < end; i++ {
		line := q.line(st, cols, marks, pending, i, w, now)
		if i == q.cursor {
			line = st.Selected.Render(cell(cursorRow(ansi.Strip(line), q.flag(marks, pending, i)), w))
		}
		b.WriteString("\n" + line)
	}
	if len(q.rows) > rows || q.more {
		b.WriteString(strings.Repeat("\n", rows-(end-q.top)+1) + q.positionLine(st, k, end, w))
	}
	return b.String()
}

// positionLine says which rows show of how many, and the keys that show
// the others.
func (q queue) positionLine(st Styles, k keymap.Map, end, w int) string {
	of := fmt.Sprintf("%d", len(q.rows))
	if q.more {
		of += "+" // more are read as the cursor nears the end
	}
	arrows := ""
	if q.top > 0 {
		arrows += "↑"
	}
	if end < len(q.rows) || q.more {
		arrows += "↓"
	}
	line := fmt.Sprintf("  rows %d–%d of %s %s · %s %s page", q.top+1, end, of, arrows, keyOf(k.PageUp), keyOf(k.PageDown))
	return st.Muted.Render(ansi.Truncate(line, w, "…"))
}

// cursorRow is a row under the cursor: the cursor takes the place of
// the mark that says the row is the person's (the row is not dimmed,
// which says it as well), and stands before any other mark (marked, in
// its undo window, decided offline), which stays.
func cursorRow(plain string, flag rune) string {
	_, first := utf8.DecodeRuneInString(plain)
	if flag == ' ' || flag == '●' {
		return "▸" + plain[first:]
	}
	return "▸" + string(flag) + strings.TrimPrefix(plain[first:], " ")
}

func (q queue) emptyView(st Styles, k keymap.Map) string {
	switch {
	case q.search != "":
		return st.Muted.Render("No conflict matches “" + safetext.Line(q.search) + "”. Press " + keyOf(k.Back) + " to clear the filter.")
	case q.tab > 0:
		return st.Muted.Render("Nothing in the view “" + lineOf(q.viewOf.Name) + "” (" + lineOf(q.viewOf.Query) + "). " +
			keyOf(k.NextView) + " and " + keyOf(k.PrevView) + " show the other views.")
	case q.all:
		return st.Muted.Render("This field has no conflicts yet.")
	}
	if q.viewer == "" {
		return st.Success.Render("Nothing waits for a person.") + " " +
			st.Muted.Render("No conflict is escalated or put to a vote. Press "+keyOf(k.AllStatuses)+" to see every status and the resolved history.")
	}
	return st.Success.Render("Nothing waits for you.") + " " +
		st.Muted.Render("No conflict is escalated or put to a vote. Press "+keyOf(k.AllStatuses)+" to see every status and the resolved history.")
}

// countsLine is the queue's first line: how many conflicts each status
// holds, what the queue shows and in what order, in as many words as w
// allows — the longest form that fits, never a claim cut in half.
func (q queue) countsLine(st Styles, marked, w int) string {
	count := func(s model.ConflictStatus) string {
		n := q.counts[s]
		style := st.Muted
		if ss, ok := st.Status[string(s)]; ok && n > 0 {
			style = ss
		}
		return style.Render(fmt.Sprintf("%s %d", strings.ReplaceAll(string(s), "_", " "), n))
	}
	// The statuses that wait for people first.
	statuses := append(slices.Clone(model.ReviewStatuses), slices.DeleteFunc(slices.Clone(model.ConflictStatuses),
		func(s model.ConflictStatus) bool { return slices.Contains(model.ReviewStatuses, s) })...)
	var all, nonzero, review, waiting []string
	others := 0
	for _, s := range statuses {
		all = append(all, count(s))
		switch {
		case slices.Contains(model.ReviewStatuses, s):
			review = append(review, count(s))
			waiting = append(waiting, count(s))
			nonzero = append(nonzero, count(s))
		case q.counts[s] > 0:
			nonzero = append(nonzero, count(s))
			others += q.counts[s]
		}
	}
	if others > 0 {
		review = append(review, st.Muted.Render(fmt.Sprintf("%d others", others)))
	}
	scope := "showing " + q.scope()
	long, short := "by "+string(q.sort), "by "+string(q.sort)
	if q.personalOrder() {
		long, short = "yours and due soon first, then by "+string(q.sort), "yours first"
		if q.sort != model.SortAge {
			short += ", by " + string(q.sort)
		}
	}
	tail := ""
	if marked > 0 {
		tail = "   " + st.Header.Render(fmt.Sprintf("%d marked", marked))
	}
	sep := st.Muted.Render(" · ")
	line := func(counts []string, scope, order string) string {
		s := strings.Join(counts, sep) + tail + st.Muted.Render("   "+scope)
		if order != "" {
			s += st.Muted.Render(", " + order)
		}
		return s
	}
	brief := q.scope()
	if q.tab > 0 {
		brief = "“" + lineOf(q.viewOf.Name) + "”"
	}
	for _, l := range []string{line(all, scope, long), line(nonzero, scope, long), line(nonzero, scope, short),
		line(review, scope, short), line(waiting, scope, short), line(review, scope, ""), line(waiting, scope, ""),
		line(waiting, brief, "")} {
		if ansi.StringWidth(l) <= w {
			return l
		}
	}
	return ansi.Truncate(line(waiting, brief, ""), w, "…")
}

// countsKey is everything the counts line depends on.
type countsKey struct {
	loads, marked, w, tab int
	all, mine, personal   bool
	sort                  model.Sort
	theme                 string
}

func (q queue) countsKey(st Styles, marked, w int) countsKey {
	return countsKey{loads: q.loads, marked: marked, w: w, tab: q.tab, all: q.all, mine: q.mineOnly,
		personal: q.personalOrder(), sort: q.sort, theme: st.Theme.Name()}
}

// scope says which conflicts the queue shows.
func (q queue) scope() string {
	switch {
	case q.all:
		return "all statuses"
	case q.mineOnly && q.tab == 0:
		return "only yours"
	case q.tab > 0:
		return "the view “" + lineOf(q.viewOf.Name) + "”"
	}
	return "waiting for people"
}

// personalOrder reports whether the rows come in the viewer's order: the
// store orders only the statuses that wait for people so.
func (q queue) personalOrder() bool { return q.personal && q.reviewOnly() }

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
