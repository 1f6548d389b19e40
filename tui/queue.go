package tui

import (
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/textinput"
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
func (q queue) view(st Styles, w, h int, now time.Time) string {
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
		b.WriteString(q.emptyView(st))
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

func (q queue) emptyView(st Styles) string {
	switch {
	case q.search != "":
		return st.Muted.Render("No conflict matches “" + safetext.Line(q.search) + "”. Press esc to clear the filter.")
	case q.all:
		return st.Muted.Render("This field has no conflicts yet.")
	}
	return st.Success.Render("Nothing waits for you.") + " " +
		st.Muted.Render("No conflict is escalated or put to a vote. Press a to see every status and the resolved history.")
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

// columns lays out the queue's table for a width.
type columns struct{ id, typ, status, age, agents, tally, desc int }

func queueColumns(w int) columns {
	c := columns{id: 16, typ: 13, status: 13, age: 5, agents: 30, tally: 6}
	if w < 110 {
		c.agents, c.typ = 22, 0
	}
	if w < 80 {
		c.agents, c.status = 0, 9
	}
	c.desc = max(10, w-c.id-c.typ-c.status-c.age-c.agents-c.tally-2)
	return c
}

func (c columns) header() string {
	return cell("  ID", c.id) + cell("TYPE", c.typ) + cell("STATUS", c.status) + cell("AGE", c.age) +
		cell("AGENTS", c.agents) + cell("VOTES", c.tally) + cell("DESCRIPTION", c.desc)
}

func (c columns) row(st Styles, r model.ConflictSummary, now time.Time) string {
	status := strings.ReplaceAll(string(r.Status), "pending_vote", "vote")
	statusStyle, ok := st.Status[string(r.Status)]
	if !ok {
		statusStyle = st.Row
	}
	tally := ""
	if r.Tally != nil && r.Status == model.StatusPendingVote {
		tally = fmt.Sprintf("%d/%d", r.Tally.Total(), r.Tally.Quorum)
	}
	agents := lineOf(r.AgentA) + " vs " + lineOf(r.AgentB)
	return "  " + cell(safetext.Line(r.ID), c.id-2) + cell(string(r.Type), c.typ) +
		statusStyle.Render(cell(status, c.status)) + st.Muted.Render(cell(age(now, r.DetectedAt), c.age)) +
		cell(agents, c.agents) + cell(tally, c.tally) + st.Muted.Render(cell(lineOf(r.Description), c.desc))
}

// cell pads or cuts s to exactly w cells (0: nothing).
func cell(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w-1, "…")
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

// age says how long ago t was, in one short unit.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
