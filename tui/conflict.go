package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Below this width the two units are shown one at a time, as tabs.
const sideBySideMin = 100

// paneMetaLines is the height of each unit's fixed header.
const paneMetaLines = 5

// conflictView shows one conflict: both units side by side.
type conflictView struct {
	id      string
	detail  model.ConflictDetail
	loaded  bool
	err     error
	panes   [2]scroller
	focus   int
	sync    bool
	diff    bool
	history bool
	raw     bool
	// notice says what changed on disk while the conflict was on screen.
	notice string
	// shown is what each pane holds, so that filling it again with the
	// same text costs nothing.
	shown [2]paneText
	// heads are each pane's title and metadata, laid out by fill.
	heads [2]measured

	w, h, innerW, paneH int
	tabs                bool
}

func newConflictView(id string) conflictView { return conflictView{id: id} }

// headerLines is how many lines the conflict's own header takes.
func (v conflictView) headerLines() int {
	n := 3
	if v.voteShown() {
		n += 1 + min(3, len(v.detail.Ballots))
	}
	if v.detail.Conflict.Resolution != nil || v.notice != "" {
		n++
	}
	return n
}

func (v conflictView) voteShown() bool {
	return v.detail.Conflict.Status == model.StatusPendingVote || len(v.detail.Ballots) > 0
}

// layout sizes the panes for a w × h area.
func (v *conflictView) layout(w, h int) {
	v.w, v.h = w, h
	v.tabs = w < sideBySideMin
	paneW := w / 2
	if v.tabs {
		paneW = w
	}
	v.innerW = max(10, paneW-4)
	area := h - v.headerLines()
	if v.tabs {
		area--
	}
	v.paneH = max(3, area)
	for i := range v.panes {
		v.panes[i].SetWidth(v.innerW)
		v.panes[i].SetHeight(max(1, v.paneH-2-1-paneMetaLines-1))
	}
}

// key is the cache key of side i's rendering at the current size.
func (v conflictView) key(i int, theme string) mdKey {
	return mdKey{unit: v.side(i).Unit.ID, width: v.innerW, theme: theme}
}

func (v conflictView) side(i int) model.Side {
	if i == 0 {
		return v.detail.A
	}
	return v.detail.B
}

// fill puts the right text in each pane: the rendered markdown (when the
// cache has it), the word diff, the raw text, or the history.
func (v *conflictView) fill(st Styles, cache map[mdKey]formatted) {
	if !v.loaded {
		return
	}
	for i := range v.heads {
		v.heads[i] = v.head(st, i)
	}
	a, b := v.detail.A.Unit.Content, v.detail.B.Unit.Content
	switch {
	case v.history:
		v.show(0, historyText(st, v.detail), true)
		v.show(1, notificationsText(st, v.detail), true)
	case v.diff:
		ta, _ := safetext.Truncate(safetext.Block(a), maxRenderBytes)
		tb, _ := safetext.Truncate(safetext.Block(b), maxRenderBytes)
		da, db, ok := wordDiff(ta, tb, st.Removed, st.Added)
		if !ok {
			da = st.Warn.Render("These units are too large for a word diff here; showing the raw text.") + "\n\n" + da
		}
		v.show(0, da, true)
		v.show(1, db, true)
	case v.raw:
		v.show(0, rawText(a, v.id), true)
		v.show(1, rawText(b, v.id), true)
	default:
		for i := range v.panes {
			f, ok := cache[v.key(i, st.Theme.Name())]
			out := f.text
			switch {
			case !ok:
				out = st.Muted.Render("Rendering…")
			case f.partial:
				out += "\n\n" + st.Muted.Render("Formatting the rest…")
			}
			v.show(i, out, false)
		}
	}
}

// paneText is a pane's text, whether the pane wraps it, and the pane's
// size when it was set.
type paneText struct {
	text string
	wrap bool
	w, h int
}

// show puts text in pane i unless it is there already. Rendered markdown
// comes wrapped to the pane's width (wrap false); other text is wrapped
// by the pane, which then measures every line at each frame.
func (v *conflictView) show(i int, text string, wrap bool) {
	p := paneText{text, wrap, v.panes[i].Width(), v.panes[i].Height()}
	if v.shown[i] == p {
		return
	}
	v.shown[i] = p
	v.panes[i].SetContent(text, wrap)
}

// scroll moves the focused pane, or both when scrolling is locked.
func (v *conflictView) scroll(fn func(*scroller)) {
	for i := range v.panes {
		if v.sync || i == v.focus || v.history {
			fn(&v.panes[i])
		}
	}
}

func (v conflictView) view(st Styles) string {
	if v.err != nil {
		return st.Error.Render(safetext.Line(plainError(v.err)))
	}
	if !v.loaded {
		return st.Muted.Render("Reading " + safetext.Line(v.id) + "…")
	}
	var b strings.Builder
	b.WriteString(v.headerView(st))
	b.WriteByte('\n')
	if v.tabs {
		b.WriteString(v.tabsView(st))
		b.WriteByte('\n')
		b.WriteString(v.paneView(st, v.focus))
	} else {
		b.WriteString(joinColumns(v.paneView(st, 0), v.paneView(st, 1)))
	}
	return b.String()
}

func (v conflictView) tabsView(st Styles) string {
	label := func(i int, name string, s lipgloss.Style) string {
		t := fmt.Sprintf(" %s %s ", name, safetext.Line(v.side(i).Unit.ID))
		if i == v.focus {
			return st.Selected.Render(s.Render(t))
		}
		return st.Muted.Render(t)
	}
	return label(0, "A", st.SideA) + " " + label(1, "B", st.SideB) + st.Muted.Render("  tab switches")
}

func (v conflictView) headerView(st Styles) string {
	c := v.detail.Conflict
	w := v.w
	status := st.Status[string(c.Status)].Render(string(c.Status))
	lines := []string{
		st.Title.Render(safetext.Line(c.ID)) + "  " + string(c.Type) + " conflict · " + status +
			st.Muted.Render(fmt.Sprintf(" · version %d · detected %s", c.Version, c.DetectedBy)) + escalationNote(st, c),
		lineOf(c.Description),
		v.rulesLine(st),
	}
	if v.voteShown() {
		lines = append(lines, voteLines(st, v.detail)...)
	}
	if r := c.Resolution; r != nil {
		lines = append(lines, st.Success.Render("Resolved")+" by "+safetext.Line(r.ResolvedBy)+" with "+string(r.Strategy)+
			winnerNote(r)+st.Muted.Render(" — "+lineOf(r.Rationale)))
	}
	if v.notice != "" {
		lines = append(lines, st.Warn.Render("⚠ "+safetext.Line(v.notice))) // it names who changed it
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func escalationNote(st Styles, c model.Conflict) string {
	if e := c.Escalation; e != nil && c.Status == model.StatusEscalated {
		return st.Muted.Render(" · escalated by ") + safetext.Line(e.By) + st.Muted.Render(": "+lineOf(e.Reason))
	}
	if e := c.VoteOpened; e != nil && c.Status == model.StatusPendingVote {
		return st.Muted.Render(" · vote opened by ") + safetext.Line(e.By) + st.Muted.Render(": "+lineOf(e.Reason))
	}
	return ""
}

func winnerNote(r *model.Resolution) string {
	switch {
	case r.WinnerID != nil:
		return ": " + safetext.Line(*r.WinnerID) + " prevails"
	case r.SynthesisUnitID != nil:
		return ": new unit " + safetext.Line(*r.SynthesisUnitID)
	}
	return ""
}

// rulesLine says what each deterministic rule would pick, and whether the
// rules agree.
func (v conflictView) rulesLine(st Styles) string {
	d := v.detail
	names := map[model.Strategy]string{model.LastWriteWins: "last write", model.ConfidenceWeighted: "confidence", model.EvidenceCount: "evidence"}
	var parts []string
	winners := map[string]bool{}
	for _, p := range d.Picks {
		pick := "tie"
		if !p.Tie {
			side := d.Conflict.Side(p.WinnerID)
			winners[side] = true
			pick = sideStyle(st, side).Render(side)
		}
		parts = append(parts, names[p.Strategy]+" → "+pick+st.Muted.Render(" ("+p.Why+")"))
	}
	verdict := st.Agree.Render("rules agree")
	if len(winners) > 1 {
		verdict = st.Split.Render("rules split")
	} else if len(winners) == 0 {
		verdict = st.Warn.Render("rules cannot decide")
	}
	return st.Label.Render("Rules: ") + strings.Join(parts, st.Muted.Render(" · ")) + "  " + verdict
}

func sideStyle(st Styles, side string) lipgloss.Style {
	if side == "B" {
		return st.SideB
	}
	return st.SideA
}

func voteLines(st Styles, d model.ConflictDetail) []string {
	t := d.Tally
	head := st.Label.Render("Vote: ") + fmt.Sprintf("%d for %s · %d for %s · %d of quorum %d",
		t.ForA, st.SideA.Render("A"), t.ForB, st.SideB.Render("B"), t.Total(), t.Quorum)
	if t.Total() < t.Quorum && d.Conflict.Status == model.StatusPendingVote {
		head += st.Muted.Render(fmt.Sprintf(" — %d more needed", t.Quorum-t.Total()))
	}
	lines := []string{head}
	for i, b := range d.Ballots {
		if i == 3 {
			break
		}
		side := d.Conflict.Side(b.Choice)
		lines = append(lines, "  "+safetext.Line(b.VoterID)+" → "+sideStyle(st, side).Render(side)+
			st.Muted.Render(": "+lineOf(b.Rationale)))
	}
	return lines
}

// paneView draws side i: its metadata, then its scrolling text.
func (v conflictView) paneView(st Styles, i int) string {
	text := v.heads[i]
	text.lines, text.widths = text.lines[:len(text.lines):len(text.lines)], text.widths[:len(text.widths):len(text.widths)]
	text.extend(v.panes[i].Visible())
	border := st.PaneBorder
	if i == v.focus && !v.tabs {
		border = st.PaneBorderFocused
	}
	return box(text, v.innerW, v.paneH, border)
}

// head lays out pane i's title, the unit's metadata and a rule.
func (v conflictView) head(st Styles, i int) measured {
	sd := v.side(i)
	name, ss := "A", st.SideA
	if i == 1 {
		name, ss = "B", st.SideB
	}
	title := ss.Render(name) + " " + st.PaneTitle.Render(safetext.Line(sd.Unit.ID))
	if v.history {
		title = st.PaneTitle.Render([]string{"History", "Notifications"}[i])
	}
	m := measure(title, v.innerW)
	if !v.history {
		meta := measure(paneMeta(st, sd, v.innerW), v.innerW)
		m.extend(meta.lines, meta.widths)
	}
	m.add(st.Muted.Render(strings.Repeat("─", v.innerW)), v.innerW)
	return m
}

// paneMeta is the unit's header: author, type, confidence, evidence,
// epoch and time, status, intent.
func paneMeta(st Styles, sd model.Side, w int) string {
	u := sd.Unit
	who := safetext.Line(u.Source.AgentID) + " (" + safetext.Line(u.Source.AgentRole) + ")"
	if sd.Agent != nil {
		who += st.Muted.Render(fmt.Sprintf(" authority %d", sd.Agent.Authority))
	}
	score := u.Confidence.ScoreOr(0)
	conf := bar(st, score, 10) + fmt.Sprintf(" %.2f ", score) + st.Muted.Render(safetext.Line(u.Confidence.Reasoning))
	if u.Confidence.Score == nil {
		conf = st.Muted.Render("no confidence given")
	}
	ev := fmt.Sprintf("%d supporting", len(sd.Supporters))
	if len(sd.Supporters) > 0 {
		ev += st.Muted.Render(" — " + safetext.Line(strings.Join(sd.Supporters, ", ")))
	}
	if n := len(u.Confidence.Evidence); n > 0 {
		ev += st.Muted.Render(fmt.Sprintf(" · %d cited", n))
	}
	when := fmt.Sprintf("epoch %d · %s · %s · %s", u.Epoch, u.Source.Timestamp.Local().Format("2006-01-02 15:04"), u.Mode, u.Status)
	intent := "intent: " + safetext.Line(u.Intent.Purpose)
	if u.Intent.TaskID != nil {
		intent += st.Muted.Render(" (task " + safetext.Line(*u.Intent.TaskID) + ")")
	}
	lines := []string{who + st.Muted.Render(" · "+string(u.Type)), conf, st.Label.Render("evidence ") + ev,
		st.Muted.Render(when), st.Muted.Render(intent)}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

// bar draws a confidence score as a bar of n cells.
func bar(st Styles, score float64, n int) string {
	full := int(score*float64(n) + 0.5)
	full = max(0, min(n, full))
	return st.Bar.Full.Render(strings.Repeat("█", full)) + st.Bar.Empty.Render(strings.Repeat("░", n-full))
}

// maxRawBytes bounds the raw text a pane lays out: laying out takes
// about 50 ms a megabyte, in Update. The whole unit is one command away.
const maxRawBytes = 1 << 20

// rawText is a unit's content as it was written, made safe, up to
// maxRawBytes; past that, a note says how to read all of it.
func rawText(content, conflictID string) string {
	text, cut := safetext.Truncate(content, maxRawBytes)
	text = safetext.Block(text)
	if cut {
		text += fmt.Sprintf("\n\n… shown: the first %d KB of %d KB. `arbiter show %s` prints all of it.",
			maxRawBytes>>10, len(content)>>10, safetext.Line(conflictID))
	}
	return text
}

// maxPayloadBytes bounds the part of an event's payload the history
// shows: a RECORD event holds the whole unit.
const maxPayloadBytes = 2 << 10

// excerpt is s cut to at most n bytes, with "…" if it was cut.
func excerpt(s string, n int) string {
	if cut, ok := safetext.Truncate(s, n); ok {
		return cut + "…"
	}
	return s
}

// maxLineBytes bounds the field text a one-line place of the screen
// sanitizes and measures: more than the widest line shows. Descriptions,
// reasons and rationales have no size limit, and the conflict's header
// is drawn at every frame: a 10 MB description took seconds a frame.
const maxLineBytes = 4 << 10

// lineOf is field text made safe for one line, cut to maxLineBytes first.
func lineOf(s string) string { return safetext.Line(excerpt(s, maxLineBytes)) }

func historyText(st Styles, d model.ConflictDetail) string {
	var b strings.Builder
	for _, e := range d.Events {
		fmt.Fprintf(&b, "%s %s %s\n", st.Muted.Render(fmt.Sprintf("epoch %-5d", e.Epoch)),
			st.Bold.Render(e.Operation), safetext.Line(e.AgentID))
		fmt.Fprintf(&b, "  %s\n", st.Muted.Render(safetext.Line(e.At.Local().Format("2006-01-02 15:04:05"))))
		if len(e.Payload) > 2 {
			b.WriteString(st.Faint.Render("  "+safetext.Line(excerpt(string(e.Payload), maxPayloadBytes))) + "\n")
		}
	}
	if b.Len() == 0 {
		return st.Muted.Render("No events.")
	}
	return b.String()
}

func notificationsText(st Styles, d model.ConflictDetail) string {
	var b strings.Builder
	for _, n := range d.Notifications {
		action := ""
		if n.RequiresAction {
			action = st.Warn.Render(" · action needed")
		}
		fmt.Fprintf(&b, "%s → %s%s\n  %s\n", st.Muted.Render(fmt.Sprintf("epoch %-5d", n.Epoch)),
			st.Bold.Render(safetext.Line(n.AgentID)), action, safetext.Line(n.Event+": "+n.Summary))
	}
	if b.Len() == 0 {
		return st.Muted.Render("No notifications.")
	}
	return b.String()
}
