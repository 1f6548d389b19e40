package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	"github.com/charmbracelet/x/ansi"
)

// The queue drawn: its rows rendered once and kept, the counts line that
// says what it shows, the table, and the line that says which rows show.

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
