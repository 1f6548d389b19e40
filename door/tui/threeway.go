package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/internal/threeway"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The conflict's three-way view: when both units revise one earlier unit,
// three panes show that ancestor and each side's text, word by word, with
// what each side changed in it marked (threewaylayout.go). The panes hold
// as many lines and always scroll together. Without an ancestor the key
// shows the word diff of the two units, and says why.

// Below this width the three panes are shown one at a time, as tabs.
const threeColumnsMin = 120

// threeHeadLines is the height of each pane's header: the unit, its
// author and lineage, a rule.
const threeHeadLines = 3

// threeView is the three-way view's state within the conflict's screen.
type threeView struct {
	on    bool
	panes [3]scroller
	// focus is the pane shown when they are tabs.
	focus int
	tabs  bool
	w     int
	// innerW is a pane's width inside its border; paneH its height.
	innerW, paneH int
	cmp           *comparison
	laid          *threeLaid // nil while it is being made
	err           error
	// shown is the layout the panes hold; resume, where they were
	// scrolled to before a new layout was asked for.
	shown  *threeLaid
	resume int
	heads  [3]measured
	// headsOf is what the heads were laid out for.
	headsOf headsKey
}

// headsKey is what the panes' headers depend on.
type headsKey struct {
	width int
	theme Theme
	cmp   *comparison
}

// layout sizes the panes for a w-wide area of area lines below the
// conflict's header.
func (t *threeView) layout(w, area int) {
	t.w = w
	t.tabs = w < threeColumnsMin
	paneW := w / 3
	if t.tabs {
		paneW = w
	}
	t.innerW = max(10, paneW-4)
	t.paneH = max(3, area-1) // the summary line
	if t.tabs {
		t.paneH = max(3, t.paneH-1)
	}
	for i := range t.panes {
		t.panes[i].SetWidth(t.innerW)
		t.panes[i].SetHeight(max(1, t.paneH-2-threeHeadLines))
	}
}

// threeKey is the cache key of the three-way view at the current size.
func (v conflictView) threeKey(st Styles) threeKey {
	return threeKey{cmpKey{v.id, v.detail.Conflict.Version}, v.three.innerW, st.Theme.Name()}
}

// fillThree puts the layout in the panes, or says why it is not there.
func (v *conflictView) fillThree(st Styles) {
	t := &v.three
	if hk := (headsKey{t.innerW, st.Theme, t.cmp}); hk != t.headsOf {
		for i := range t.heads {
			t.heads[i] = v.threeHead(st, i)
		}
		t.headsOf = hk
	}
	var note string
	switch {
	case t.err != nil:
		note = st.Error.Render("Could not compare the units with their ancestor: " + plainError(t.err))
	case t.laid == nil:
		note = st.Muted.Render("Comparing with the ancestor…")
	case t.shown != t.laid:
		for i := range t.panes {
			t.panes[i].setLaid(t.laid.panes[i])
			if t.shown == nil && !t.panes[i].end { // where the reader was
				t.panes[i].SetYOffset(t.resume)
			}
		}
		t.shown = t.laid
	}
	if note != "" {
		if t.shown != nil {
			t.resume = t.panes[0].YOffset()
		}
		t.shown = nil
		for i := range t.panes {
			t.panes[i].SetContent(note, true)
		}
	}
}

// setLaid puts lines laid out and measured already in the pane.
func (s *scroller) setLaid(m measured) {
	s.lines, s.widths = m.lines, m.widths
	if s.end {
		s.off = len(s.lines)
	}
	s.clamp()
}

// threeHead lays out pane i's header: the unit, then who wrote it and
// what it revises.
func (v conflictView) threeHead(st Styles, i int) measured {
	w := v.three.innerW
	anc := v.detail.Ancestor
	var title, meta string
	switch i {
	case 0:
		title = st.Label.Render("base") + " " + st.PaneTitle.Render(safetext.Line(anc.UnitID))
		meta = "the unit both revise"
		if c := v.three.cmp; c != nil && c.base != nil {
			meta = "by " + safetext.Line(c.base.Source.AgentID) + " · " + meta
		}
	default:
		sd, name, path := v.detail.A, "A", anc.PathA
		if i == 2 {
			sd, name, path = v.detail.B, "B", anc.PathB
		}
		title = sideStyle(st, name).Render(name) + " " + st.PaneTitle.Render(safetext.Line(sd.Unit.ID))
		meta = "by " + safetext.Line(sd.Unit.Source.AgentID) + " · " + revises(path)
	}
	m := measure(ansi.Truncate(title, w, "…"), w)
	m.add(st.Muted.Render(ansi.Truncate(meta, w, "…")), w)
	m.add(st.Muted.Render(strings.Repeat("─", w)), w)
	return m
}

// revises says what a unit revises along path (the unit first, the
// ancestor last): "supersedes mem-3" or "supersedes mem-5, which
// supersedes mem-3".
func revises(path []string) string {
	var b strings.Builder
	for i, id := range path[min(1, len(path)):] {
		if i > 0 {
			b.WriteString(", which ")
		}
		b.WriteString("supersedes " + safetext.Line(id))
	}
	return b.String()
}

// summary is the line above the panes: what they compare, and how many
// changes of each kind there are, with the marks that show them.
func (v conflictView) threeSummary(st Styles) string {
	t := v.three
	mk := st.Three
	line := st.Label.Render("Three-way:") + " what A and B each changed in " + safetext.Line(v.detail.Ancestor.UnitID) +
		st.Muted.Render(", the unit both revise")
	if c := t.cmp; c != nil {
		n := c.c.Count
		line += "   " + strings.Join([]string{
			mk.MarkA.Render("A") + fmt.Sprintf(" %d by A only", n(threeway.ChangedA)),
			mk.MarkB.Render("B") + fmt.Sprintf(" %d by B only", n(threeway.ChangedB)),
			mk.MarkBoth.Render("==") + fmt.Sprintf(" %d alike", n(threeway.ChangedBoth)),
			mk.MarkDisputed.Render("!!") + fmt.Sprintf(" %d disputed", n(threeway.Disputed)),
		}, st.Muted.Render(" · "))
	}
	if c, l := t.cmp, t.laid; c != nil && c.cut || l != nil && l.cut {
		line += st.Warn.Render(fmt.Sprintf("   shown: the first %d KB; `arbiter show %s --three-way` prints all of it",
			maxRenderBytes>>10, safetext.Line(v.id)))
	}
	return ansi.Truncate(line, v.w, "…")
}

// threeWayView draws the summary and the panes, side by side or as tabs.
func (v conflictView) threeWayView(st Styles, k keymap.Map) string {
	t := v.three
	var b strings.Builder
	b.WriteString(v.threeSummary(st))
	b.WriteByte('\n')
	if t.tabs {
		b.WriteString(v.threeTabs(st, k))
		b.WriteByte('\n')
		b.WriteString(t.paneView(st, t.focus))
		return b.String()
	}
	b.WriteString(joinColumns(joinColumns(t.paneView(st, 0), t.paneView(st, 1)), t.paneView(st, 2)))
	return b.String()
}

func (t threeView) paneView(st Styles, i int) string {
	text := t.heads[i]
	text.lines, text.widths = text.lines[:len(text.lines):len(text.lines)], text.widths[:len(text.widths):len(text.widths)]
	text.extend(t.panes[i].Visible())
	top, bottom := scrollLabels(st, &t.panes[i])
	return labeledBox(text, t.innerW, t.paneH, st.PaneBorder, top, bottom)
}

func (v conflictView) threeTabs(st Styles, k keymap.Map) string {
	label := func(i int, name, id string, s lipgloss.Style) string {
		t := " " + name + " " + safetext.Line(id) + " "
		if i == v.three.focus {
			return st.Selected.Render(s.Render(t))
		}
		return st.Muted.Render(t)
	}
	line := label(0, "base", v.detail.Ancestor.UnitID, st.Label) + " " + label(1, "A", v.detail.A.Unit.ID, st.SideA) + " " +
		label(2, "B", v.detail.B.Unit.ID, st.SideB) + st.Muted.Render("  "+keyOf(k.NextPane)+" switches")
	return ansi.Truncate(line, v.w, "…")
}

// threeWayKey handles the keys that the three-way view changes the
// meaning of; ok is false for the others.
func (m *Model) threeWayKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	v := &m.conflict
	k := m.keys
	switch {
	case key.Matches(msg, k.ThreeWay):
		return m.toggleThreeWay(), true
	case !v.three.on:
		return nil, false
	case key.Matches(msg, k.NextPane):
		v.three.focus = (v.three.focus + 1) % 3
		return nil, true
	case key.Matches(msg, k.SyncScroll):
		return m.say("The three panes always scroll together."), true
	case key.Matches(msg, k.Diff, k.Raw, k.History):
		v.three.on = false // and the key shows what it shows
	}
	return nil, false
}

// toggleThreeWay shows the three-way view, or leaves it; without an
// ancestor it shows the word diff and says why.
func (m *Model) toggleThreeWay() tea.Cmd {
	v := &m.conflict
	switch {
	case !v.loaded:
		return m.say("Reading " + v.id + "…")
	case v.three.on:
		v.three.on = false
		m.fillPanes()
		return nil
	case v.detail.Ancestor == nil:
		v.diff, v.raw, v.history = true, false, false
		m.fillPanes()
		return m.say(v.id + " has no common ancestor: A and B revise no earlier unit in common. Showing their word diff (" +
			keyOf(m.keys.Diff) + ") instead.")
	}
	v.three.on = true
	v.diff, v.raw, v.history = false, false, false
	cmd := m.requestThree()
	m.fillPanes()
	return cmd
}

// viewKeys are the footer's keys for the conflict's views: the three-way
// key only where it shows one, and in the three-way view only what works
// there.
func (v conflictView) viewKeys(k keymap.Map) []key.Binding {
	if v.three.on {
		out := []key.Binding{k.ThreeWay, k.Diff, k.History, k.Back, k.Help}
		if v.three.tabs {
			out = append([]key.Binding{k.NextPane}, out...)
		}
		return out
	}
	if v.whole {
		return []key.Binding{k.WholeHeader, k.Back, k.Help}
	}
	if v.loaded && v.detail.Ancestor != nil {
		return []key.Binding{k.NextPane, k.Diff, k.ThreeWay, k.History, k.SyncScroll, k.Back, k.Help, k.WholeHeader}
	}
	return []key.Binding{k.NextPane, k.Diff, k.History, k.SyncScroll, k.Back, k.Help, k.WholeHeader}
}

// helpKeys are the bindings the help screen lists: all of them, but the
// three-way key over a conflict whose units revise no unit in common.
func (m *Model) helpKeys() keymap.Map {
	k := m.keys
	if m.inConflict() && m.conflict.loaded && m.conflict.detail.Ancestor == nil {
		k.ThreeWay.SetEnabled(false)
	}
	return k
}
