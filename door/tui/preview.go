package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The preview shows, beside the queue on a wide terminal, the conflict
// under the cursor: what is disputed, its route and deadline, and both
// sides — author, confidence, the first lines of each text. The row's
// own fields show at once; both units come from the field in a command
// and their first lines are formatted there too, then kept per conflict
// (and per width and theme), so that moving the cursor only assembles
// strings. One read is under way at a time: when it ends, the row under
// the cursor is read next, then its neighbours.

const (
	// previewMinWidth is the narrowest terminal the preview shows on.
	previewMinWidth = 140
	// previewHeadLines is how many lines of each unit the preview
	// formats: more than the tallest preview shows of one.
	previewHeadLines = 40
	// maxPreviews bounds the conflicts the preview keeps; past it, it
	// starts afresh.
	maxPreviews = 256
)

// previewState is the preview's switch and what it keeps.
type previewState struct {
	// off: the person hid it (preview_pane shows it again).
	off     bool
	entries map[string]*previewEntry
	// loading is the conflict being read, "" for none.
	loading string
	// drawn is the preview last drawn, for drawnKey.
	drawn    string
	drawnKey previewKey
}

// previewEntry is one conflict as the preview keeps it.
type previewEntry struct {
	detail model.ConflictDetail
	err    error
	// version is the conflict's version as read: a row of a later
	// version is read again (a read that failed, too).
	version int64
	// heads are the first lines of each unit, formatted, by width and
	// theme; more says there is more of the unit than its head.
	heads map[mdKey]previewHead
}

type previewHead struct {
	text string
	more bool
}

// previewKey is everything a drawn preview depends on.
type previewKey struct {
	id           string
	version      int64
	loaded, head bool
	w, h         int
	theme        string
	minute       int64
	viewer       string
}

// previewLoadedMsg is a conflict read for the preview, with the first
// lines of both units formatted for width w and theme.
type previewLoadedMsg struct {
	id      string
	version int64 // the row's, when it was asked for
	detail  model.ConflictDetail
	err     error
	heads   [2]previewHead
	keys    [2]mdKey
	read    bool // the detail was read (not only formatted again)
}

// previewShown reports whether the queue has the preview beside it.
func (m *Model) previewShown() bool {
	return !m.preview.off && m.width >= previewMinWidth
}

// previewWidth is the preview's width, border included.
func (m *Model) previewWidth() int { return max(56, min(100, m.width*2/5)) }

// queueWidth is the width the queue's table has: what the preview
// leaves, but a column between them.
func (m *Model) queueWidth() int {
	if m.previewShown() {
		return m.width - m.previewWidth() - 1
	}
	return m.width
}

// previewInner is the width of the text inside the preview's border.
func (m *Model) previewInner() int { return m.previewWidth() - 4 }

// togglePreview shows or hides the preview, or says why it cannot show.
func (m *Model) togglePreview() tea.Cmd {
	if m.width < previewMinWidth {
		return m.say(fmt.Sprintf("The preview shows beside the queue on a terminal of %d columns or more; this one has %d. %s opens the conflict.",
			previewMinWidth, m.width, keyOf(m.keys.Open)))
	}
	m.preview.off = !m.preview.off
	m.queue.scrollTo(m.queueRows())
	return nil
}

// wantPreview reads the next conflict the preview needs: the row under
// the cursor, then the rows beside it; nothing while a read is under way
// or when everything near the cursor is kept.
func (m *Model) wantPreview() tea.Cmd {
	p := &m.preview
	q := &m.queue
	if !m.previewShown() || p.loading != "" || len(q.rows) == 0 || m.top() != (queueScreen{}) {
		return nil
	}
	theme := m.styles.Theme.Name()
	for _, i := range []int{q.cursor, q.cursor + 1, q.cursor - 1} {
		if i < 0 || i >= len(q.rows) {
			continue
		}
		r := q.rows[i]
		e := p.entries[r.ID]
		switch {
		case e == nil || e.version < r.Version:
			p.loading = r.ID
			return loadPreview(m.ctx, m.svc, m.md, r.ID, r.Version, nil, m.previewInner(), theme)
		case e.err != nil:
			continue
		}
		keys := previewKeys(e.detail, m.previewInner(), theme)
		if _, ok := e.heads[keys[0]]; !ok {
			p.loading = r.ID
			d := e.detail
			return loadPreview(m.ctx, m.svc, m.md, r.ID, r.Version, &d, m.previewInner(), theme)
		}
	}
	return nil
}

// previewKeys are the cache keys of both units' heads at width w.
func previewKeys(d model.ConflictDetail, w int, theme string) [2]mdKey {
	return [2]mdKey{{unit: d.A.Unit.ID, width: w, theme: theme}, {unit: d.B.Unit.ID, width: w, theme: theme}}
}

// loadPreview reads conflict id (unless known is it already) and formats
// the first lines of both its units.
func loadPreview(ctx context.Context, svc review.Desk, md *markdown, id string, version int64, known *model.ConflictDetail, w int, theme string) tea.Cmd {
	return func() tea.Msg {
		msg := previewLoadedMsg{id: id, version: version}
		if known != nil {
			msg.detail = *known
		} else {
			msg.read = true
			msg.detail, msg.err = svc.Detail(ctx, id)
			if msg.err != nil {
				return msg
			}
		}
		msg.keys = previewKeys(msg.detail, w, theme)
		for i, sd := range []model.Side{msg.detail.A, msg.detail.B} {
			out, rest := md.RenderHead(sd.Unit.Content, w, theme, previewHeadLines)
			msg.heads[i] = previewHead{text: out, more: rest != nil}
		}
		return msg
	}
}

// previewLoaded keeps what a read brought, and asks for the next.
func (m *Model) previewLoaded(msg previewLoadedMsg) {
	p := &m.preview
	if p.loading == msg.id {
		p.loading = ""
	}
	if p.entries == nil || len(p.entries) > maxPreviews {
		p.entries = map[string]*previewEntry{}
	}
	e := p.entries[msg.id]
	if e == nil || msg.read {
		e = &previewEntry{heads: map[mdKey]previewHead{}}
		p.entries[msg.id] = e
	}
	e.detail, e.err, e.version = msg.detail, msg.err, max(msg.version, msg.detail.Conflict.Version)
	if msg.err == nil {
		for i, k := range msg.keys {
			e.heads[k] = msg.heads[i]
		}
	}
}

// previewView draws the preview of the row under the cursor, w × h
// cells, border included. prepare draws it once per row, size and
// minute; View takes it as drawn.
func (m *Model) previewView(w, h int) string {
	k, ok := m.previewKeyNow(w, h)
	if ok && m.preview.drawnKey == k && m.preview.drawn != "" {
		return m.preview.drawn
	}
	return m.drawPreview(k, w, h)
}

// preparePreview draws the preview ahead of View.
func (m *Model) preparePreview() {
	if !m.previewShown() {
		return
	}
	w, h := m.previewWidth(), m.bodyHeight()
	k, _ := m.previewKeyNow(w, h)
	if m.preview.drawnKey != k || m.preview.drawn == "" {
		m.preview.drawn, m.preview.drawnKey = m.drawPreview(k, w, h), k
	}
}

// previewKeyNow is the key of the preview as it would be drawn now;
// false when there is no row.
func (m *Model) previewKeyNow(w, h int) (previewKey, bool) {
	r, ok := m.queue.selected()
	if !ok {
		return previewKey{w: w, h: h, theme: m.styles.Theme.Name()}, false
	}
	k := previewKey{id: r.ID, version: r.Version, w: w, h: h, theme: m.styles.Theme.Name(),
		minute: m.now().Unix() / 60, viewer: m.me.ID}
	if e := m.preview.entries[r.ID]; e != nil {
		k.loaded = true
		_, k.head = e.heads[previewKeys(e.detail, w-4, k.theme)[0]]
	}
	return k, true
}

// drawPreview draws the preview for k.
func (m *Model) drawPreview(k previewKey, w, h int) string {
	st := m.styles
	inner := w - 4
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	r, ok := m.queue.selected()
	if !ok {
		add(st.Muted.Render("Nothing to preview."))
		return box(measure(strings.Join(lines, "\n"), inner), inner, h, st.PaneBorder)
	}
	e := m.preview.entries[r.ID]
	c := r.Conflict
	if e != nil && e.err == nil {
		c = e.detail.Conflict
	}
	status := strings.ReplaceAll(string(c.Status), "_", " ")
	title := st.Title.Render(safetext.Line(c.ID)) + " " + string(c.Type) + st.Muted.Render(" · ") +
		st.Status[string(c.Status)].Render(status)
	add(ansi.Truncate(title, inner, "…"))
	lines = append(lines, cutLines(wrapLines(lineOf(c.Description), inner), 3)...)
	now := m.now()
	if routed(c) {
		lines = append(lines, cutLines(wrapLines(routeLine(st, c, m.me.ID, now), inner), 2)...)
	}
	if proposed(c) {
		lines = append(lines, cutLines(wrapLines(proposalLine(st, m.keys, c, false), inner), 2)...)
	}
	switch {
	case e == nil:
		if !m.queue.oneAuthor { // as the queue, which then has no AGENTS: one program wrote every unit
			add(st.Muted.Render(safetext.Line(lineOf(r.AgentA)) + " vs " + safetext.Line(lineOf(r.AgentB))))
		}
		add("")
		add(st.Muted.Render("Reading both units…"))
	case e.err != nil:
		add("")
		lines = append(lines, wrapLines(st.Error.Render("Could not read "+safetext.Line(r.ID)+": "+plainError(e.err)), inner)...)
	default:
		if c.Status == model.StatusPendingVote {
			lines = append(lines, cutLines(wrapLines(voteLines(st, e.detail, 0)[0], inner), 2)...)
		}
		lines = append(lines, cutLines(wrapLines(rulesVerdict(st, e.detail), inner), 2)...)
		lines = append(lines, m.previewSides(e, inner, h-2-len(lines))...)
	}
	return box(measure(strings.Join(lines, "\n"), inner), inner, h, st.PaneBorder)
}

// previewSides are both units, in rows lines at most: each one's header,
// then as many of its first lines as its half holds.
func (m *Model) previewSides(e *previewEntry, w, rows int) []string {
	st := m.styles
	d := e.detail
	keys := previewKeys(d, w, st.Theme.Name())
	out := []string{st.Muted.Render(strings.Repeat("─", w))}
	rows--
	var heads [2]previewHead
	var need [2]int
	for i := range heads {
		h, ok := e.heads[keys[i]]
		heads[i] = h
		need[i] = 2
		if ok {
			need[i] = 1 + len(strings.Split(strings.Trim(h.text, "\n"), "\n"))
			if h.more {
				need[i]++
			}
		}
	}
	share := [2]int{rows / 2, rows - rows/2}
	switch {
	case need[0]+need[1] <= rows:
		share = need
	case need[0] < share[0]:
		share = [2]int{need[0], rows - need[0]}
	case need[1] < share[1]:
		share = [2]int{rows - need[1], need[1]}
	}
	for i, sd := range []model.Side{d.A, d.B} {
		half := share[i]
		name, ss := "A", st.SideA
		if i == 1 {
			name, ss = "B", st.SideB
		}
		head := ss.Render(name+":") + " " + st.PaneTitle.Render(safetext.Line(sd.Unit.ID)) + st.Muted.Render(" by ") +
			safetext.Line(sd.Unit.Source.AgentID) + st.Muted.Render(" · ") + previewConfidence(st, sd.Unit)
		out = append(out, ansi.Truncate(head, w, "…"))
		half--
		h, ok := e.heads[keys[i]]
		if !ok {
			out = append(out, st.Muted.Render("Formatting…"))
			continue
		}
		text := strings.Split(strings.Trim(h.text, "\n"), "\n")
		more := h.more
		if len(text) > half-1 && half > 1 {
			text, more = text[:half-1], true
		}
		for _, l := range text {
			out = append(out, ansi.Truncate(l, w, "…"))
		}
		if more {
			out = append(out, st.Muted.Render("  … more: "+keyOf(m.keys.Open)+" opens the conflict"))
		}
	}
	return out
}

// previewConfidence is a unit's confidence as a short bar and its score.
func previewConfidence(st Styles, u model.Unit) string {
	if u.Confidence.Score == nil {
		return st.Muted.Render("no confidence given")
	}
	score := u.Confidence.ScoreOr(0)
	return bar(st, score, 5) + fmt.Sprintf(" %.2f", score)
}

// rulesVerdict is whether the deterministic rules agree, and what each
// picks, without its reasons: "Rules split: last write → B · confidence
// → A · evidence → A".
func rulesVerdict(st Styles, d model.ConflictDetail) string {
	parts, sides := rulePicks(st, d, false)
	return rulesAgree(st, "Rules", sides) + st.Muted.Render(": ") + strings.Join(parts, st.Muted.Render(" · "))
}

// cutLines keeps the first n lines, the last of them ending in " …" after
// its last whole word when there were more.
func cutLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	out := slices.Clone(lines[:n])
	last := ansi.Strip(out[n-1])
	if i := strings.LastIndex(strings.TrimRight(last, " "), " "); i > 0 && ansi.StringWidth(last[:i]) > 0 {
		out[n-1] = last[:i] + " …"
	} else {
		out[n-1] = ansi.Truncate(out[n-1], max(1, ansi.StringWidth(last)-1), "") + "…"
	}
	return out
}
