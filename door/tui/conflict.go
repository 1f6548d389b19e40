package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Below this width the two units are shown one at a time, as tabs.
const sideBySideMin = 100

// paneMetaLines is the height of each unit's fixed header.
const paneMetaLines = 5

// conflictView shows the open conflict (open.go): both units side by
// side.
type conflictView struct {
	*openConflict
	panes   [2]scroller
	focus   int
	sync    bool
	diff    bool
	history bool
	raw     bool
	// whole: the header is shown in full, wrapped, in place of the units;
	// wholeTop is its first line shown.
	whole    bool
	wholeTop int
	// shown is what each pane holds, so that filling it again with the
	// same text costs nothing.
	shown [2]paneText
	// heads are each pane's title and metadata, laid out by fill.
	heads [2]measured
	// three is the three-way view (threeway.go).
	three threeView

	w, h, innerW, paneH int
	tabs                bool
}

// onlooker is who looks at a conflict, when, and whether they may answer
// its proposal: the route and proposal lines say it for them.
type onlooker struct {
	id      string
	now     time.Time
	answers bool
	// decides and votes: the decision form and the ballot open for them,
	// so a draft's offer names their keys (drafts.go).
	decides, votes bool
}

func newConflictView(c *openConflict) conflictView { return conflictView{openConflict: c} }

// headerLines is how many lines the conflict's own header takes.
func (v conflictView) headerLines() int {
	n := 3 + highwayLines(v.detail.Conflict)
	if v.detail.Conflict.Detection != nil {
		n++
	}
	if v.voteShown() {
		n += 1 + min(3, len(v.detail.Ballots))
	}
	if v.detail.Conflict.Resolution != nil || v.notice != "" {
		n++
	}
	return n + len(v.offered)
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
	meta := paneMetaLines
	if v.history {
		meta = 0 // the history's panes have a title and no unit's metadata
	}
	for i := range v.panes {
		v.panes[i].SetWidth(v.innerW)
		v.panes[i].SetHeight(max(1, v.paneH-2-1-meta-1))
	}
	v.three.layout(w, h-v.headerLines())
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
	if v.three.on {
		v.fillThree(st)
		return
	}
	for i := range v.heads {
		v.heads[i] = v.head(st, i)
	}
	a, b := v.detail.A.Unit.Content, v.detail.B.Unit.Content
	switch {
	case v.history:
		v.show(0, historyText(st, v.detail, v.raw), true)
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
	if v.three.on {
		for i := range v.three.panes {
			fn(&v.three.panes[i])
		}
		return
	}
	for i := range v.panes {
		if v.sync || i == v.focus || v.history {
			fn(&v.panes[i])
		}
	}
}

// open shows a conflict; its panes fill as the field answers.
func (m *Model) open(id string) tea.Cmd {
	if m.conflict.id != id {
		c := m.openState(id)
		c.loaded, c.notice = false, "" // what changed while away is not news
		m.conflict = newConflictView(c)
	}
	m.push(conflictScreen{})
	m.conflict.layout(m.width, m.bodyHeight())
	return tea.Batch(loadDetail(m.ctx, m.svc, id), m.readDrafts(id))
}

func (m *Model) conflictKey(msg tea.KeyPressMsg) tea.Cmd {
	v := &m.conflict
	k := m.keys
	if cmd, ok := m.threeWayKey(msg); ok {
		return cmd
	}
	if !v.loaded && key.Matches(msg, k.Decide, k.Synthesize, k.Vote, k.KeepA, k.KeepB, k.Dismiss, k.Approve, k.SendBack,
		k.Modify, k.Reopen) {
		switch why := m.canDecide(); {
		case why != "":
			return m.say("Deciding is disabled: " + why + ".")
		case v.err != nil:
			return m.say("Nothing to decide on: " + safetext.Line(v.id) + " could not be read (" + keyOf(k.Back) + " goes back).")
		}
		// A key that acts on the conflict, pressed before it is read:
		// it acts once it is (detailLoaded), rather than not at all.
		m.keyAfterLoad = &pressedOn{id: v.id, key: msg}
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case m.opensHelp(msg):
		m.openHelp()
	case key.Matches(msg, k.WholeHeader):
		v.whole, v.wholeTop = !v.whole, 0
	case v.whole && key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom):
		n := len(v.wholeLines(m.styles, k, m.onlooker()))
		v.wholeTop = min(scrollBy(msg, k, v.wholeTop, max(1, v.h-2)), max(0, n-max(1, v.h-2)))
	case key.Matches(msg, k.Back) && v.whole:
		v.whole = false
	case key.Matches(msg, k.Back):
		m.pop()
		v.notice = ""
		return m.reloadQueue()
	case key.Matches(msg, k.NextPane):
		v.focus = 1 - v.focus
	case key.Matches(msg, k.Up):
		v.scroll(func(p *scroller) { p.ScrollUp(1) })
	case key.Matches(msg, k.Down):
		v.scroll(func(p *scroller) { p.ScrollDown(1) })
	case key.Matches(msg, k.PageUp):
		v.scroll(func(p *scroller) { p.PageUp() })
	case key.Matches(msg, k.PageDown):
		v.scroll(func(p *scroller) { p.PageDown() })
	case key.Matches(msg, k.Top):
		v.scroll(func(p *scroller) { p.GotoTop() })
	case key.Matches(msg, k.Bottom):
		v.scroll(func(p *scroller) { p.GotoBottom() })
	case key.Matches(msg, k.SyncScroll):
		v.sync = !v.sync
		if v.sync {
			off := v.panes[v.focus].YOffset()
			v.panes[0].SetYOffset(off)
			v.panes[1].SetYOffset(off)
			return m.say("Scrolling both panes together (" + keyOf(k.SyncScroll) + " to unlock).")
		}
		return m.say("Panes scroll on their own.")
	case key.Matches(msg, k.Diff):
		v.diff, v.raw, v.history = !v.diff, false, false
		m.fillPanes()
	case key.Matches(msg, k.Raw):
		// In the history, raw shows the events' JSON; elsewhere the
		// units' text as written.
		v.raw, v.diff = !v.raw, false
		m.fillPanes()
	case key.Matches(msg, k.History):
		v.history, v.diff, v.raw = !v.history, false, false
		v.layout(v.w, v.h)
		m.fillPanes()
		if v.history {
			// The latest events and notifications are what is read first.
			v.scroll(func(p *scroller) { p.GotoBottom() })
		}
	case key.Matches(msg, k.Decide):
		return m.startDecide()
	case key.Matches(msg, k.Synthesize):
		return m.startSynthesis()
	case key.Matches(msg, k.Vote):
		return m.startVote()
	case key.Matches(msg, k.KeepA, k.KeepB) && v.loaded && mayBallot(m.me, v.detail) && m.canDecide() == "":
		return m.quick(quickKindOf(msg, k), []string{v.id})
	case key.Matches(msg, k.KeepA, k.KeepB) && v.loaded && v.detail.Conflict.Status == model.StatusPendingVote &&
		ballotRefusal(m.me, m.agents, v.detail) != "" && m.canDecide() == "":
		return m.say(kindNames[quickKindOf(msg, k)] + " on " + v.id + ": " + ballotRefusal(m.me, m.agents, v.detail) + ".")
	case key.Matches(msg, k.KeepA, k.KeepB, k.Dismiss):
		if why := m.notYours(); why != "" {
			return m.say(why)
		}
		return m.quick(quickKindOf(msg, k), []string{v.id})
	case key.Matches(msg, k.Approve, k.SendBack):
		if why := m.notYours(); why != "" {
			return m.say(why)
		}
		return m.quick(quickKindOf(msg, k), []string{v.id})
	case key.Matches(msg, k.Modify):
		return m.startModify()
	case key.Matches(msg, k.Reopen):
		return m.startReopen()
	case key.Matches(msg, k.Undo):
		return m.undo()
	case key.Matches(msg, k.Inbox):
		return m.openInbox()
	case key.Matches(msg, k.DropDraft):
		return m.dropDrafts()
	}
	return nil
}

// summaryOf is a conflict's detail as a queue row, for model.TurnOf.
func summaryOf(d model.ConflictDetail) model.ConflictSummary {
	return model.ConflictSummary{Conflict: d.Conflict, AgentA: d.A.Unit.Source.AgentID, AgentB: d.B.Unit.Source.AgentID}
}

// turn is what the person at the screen can do about the conflict on
// screen.
func (m *Model) turn() model.Turn {
	d := m.conflict.detail
	voted := slices.ContainsFunc(d.Ballots, func(b model.Ballot) bool { return b.VoterID == m.me.ID })
	return model.TurnOf(m.policy, m.me, summaryOf(d), voted)
}

// notYours says why deciding the conflict on screen is not the person's
// to do, naming what they can do or who can ("" when it is theirs).
func (m *Model) notYours() string {
	v := &m.conflict
	if why := m.canDecide(); why != "" {
		return "Deciding is disabled: " + why + "."
	}
	if !v.loaded {
		return "Reading " + v.id + "…"
	}
	c := v.detail.Conflict
	switch t := m.turn(); {
	case t == model.TurnDecide:
		return ""
	case c.Status == model.StatusResolved && m.me.IsHumanOperator():
		return c.ID + " is already resolved; press " + keyOf(m.keys.Reopen) + " to reopen it."
	case c.Status == model.StatusResolved:
		return c.ID + " is already resolved."
	case t == model.TurnVote:
		return c.ID + " is put to a vote: press " + keyOf(m.keys.Vote) + " to vote."
	}
	who := model.WhoActs(v.detail.Policy, m.agents, summaryOf(v.detail))
	if c.Status == model.StatusPendingVote {
		return fmt.Sprintf("%s is put to a vote: %s vote on it, not you.", c.ID, who)
	}
	return fmt.Sprintf("%s is %s: %s decides it, not you.", c.ID, strings.ReplaceAll(string(c.Status), "_", " "), who)
}

// conflictWheel scrolls the pane under the mouse, or both.
func (m *Model) conflictWheel(msg tea.MouseWheelMsg) {
	v := &m.conflict
	if !v.tabs && !v.sync {
		v.focus = 0
		if msg.Mouse().X >= m.width/2 {
			v.focus = 1
		}
	}
	if msg.Mouse().Button == tea.MouseWheelUp {
		v.scroll(func(p *scroller) { p.ScrollUp(3) })
	} else {
		v.scroll(func(p *scroller) { p.ScrollDown(3) })
	}
}

// detailLoaded shows the conflict the field sent, and says what changed
// if it changed while on screen.
func (m *Model) detailLoaded(msg detailLoadedMsg) tea.Cmd {
	c := m.conflict.openConflict
	if msg.id != c.id {
		return nil
	}
	if msg.err != nil {
		c.err = msg.err
		return nil
	}
	c.reload(msg.detail, m.me, m.written[c.id])
	if m.synthAfter == c.id && m.top() == (conflictScreen{}) {
		m.synthAfter = ""
		return tea.Batch(m.layout(), m.startSynthesis())
	}
	if p := m.keyAfterLoad; p != nil && p.id == c.id && m.top() == (conflictScreen{}) {
		m.keyAfterLoad = nil
		return tea.Batch(m.layout(), m.conflictKey(p.key))
	}
	return m.layout()
}

// pressedOn is a key pressed on conflict id before it was read.
type pressedOn struct {
	id  string
	key tea.KeyPressMsg
}

// conflictHelp is the footer of a conflict: the actions that work for
// this person on this conflict, then the view's own keys.
func (m *Model) conflictHelp() []key.Binding {
	k := m.keys
	var out []key.Binding
	v := m.conflict
	switch {
	case m.canDecide() != "":
		out = append(out, m.decisionKey(k.Decide))
	case !v.loaded:
	case v.detail.Conflict.Status == model.StatusResolved:
		if m.me.IsHumanOperator() {
			out = append(out, k.Reopen)
		}
	case m.answersProposal():
		out = append(out, k.Approve, k.Modify, k.SendBack, k.Decide)
	case m.turn() == model.TurnDecide && m.mayRework():
		out = append(out, k.Decide, k.KeepA, k.KeepB, k.Dismiss, k.SendBack)
	case m.turn() == model.TurnDecide:
		out = append(out, k.Decide, k.KeepA, k.KeepB, k.Dismiss)
	case m.turn() == model.TurnVote || mayBallot(m.me, v.detail):
		out = append(out, k.Vote, k.KeepA, k.KeepB)
	}
	return append(out, v.viewKeys(k)...)
}

func (v conflictView) view(st Styles, k keymap.Map, who onlooker) string {
	if !v.loaded {
		return st.Muted.Render("Reading " + safetext.Line(v.id) + "…")
	}
	if v.whole {
		return v.wholeHeaderView(st, k, who, v.h)
	}
	var b strings.Builder
	b.WriteString(v.headerView(st, k, who))
	b.WriteByte('\n')
	if v.three.on {
		return b.String() + v.threeWayView(st, k)
	}
	if v.tabs {
		b.WriteString(v.tabsView(st, k))
		b.WriteByte('\n')
		b.WriteString(v.paneView(st, v.focus))
	} else {
		b.WriteString(joinColumns(v.paneView(st, 0), v.paneView(st, 1)))
	}
	return b.String()
}

func (v conflictView) tabsView(st Styles, k keymap.Map) string {
	label := func(i int, name string, s lipgloss.Style) string {
		t := fmt.Sprintf(" %s %s ", name, safetext.Line(v.side(i).Unit.ID))
		if i == v.focus {
			return st.Selected.Render(s.Render(t))
		}
		return st.Muted.Render(t)
	}
	return label(0, "A", st.SideA) + " " + label(1, "B", st.SideB) + st.Muted.Render("  "+keyOf(k.NextPane)+" switches")
}

func (v conflictView) headerView(st Styles, k keymap.Map, who onlooker) string {
	lines := v.headerLinesOf(st, k, who, 3)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, v.w, "…") // the whole header key shows it all
	}
	return strings.Join(lines, "\n")
}

// wholeHeaderView is the header in full, every line wrapped to the
// width and every ballot listed, cut to h lines.
func (v conflictView) wholeHeaderView(st Styles, k keymap.Map, who onlooker, h int) string {
	return windowAt(st, v.wholeLines(st, k, who), v.wholeTop, h, " · "+keyOf(k.Down)+" scrolls")
}

// wholeLines are the lines of the whole header.
func (v conflictView) wholeLines(st Styles, k keymap.Map, who onlooker) []string {
	var out []string
	for _, l := range v.headerLinesOf(st, k, who, len(v.detail.Ballots)) {
		out = append(out, wrapLines(l, v.w)...)
	}
	return append(out, "", st.Muted.Render(keyOf(k.WholeHeader)+" or "+keyOf(k.Back)+" goes back to the units"))
}

// headerLinesOf is the header's lines, uncut, with up to ballots of the
// vote's ballots.
func (v conflictView) headerLinesOf(st Styles, k keymap.Map, who onlooker, ballots int) []string {
	c := v.detail.Conflict
	status := st.Status[string(c.Status)].Render(string(c.Status))
	lines := []string{
		st.Title.Render(safetext.Line(c.ID)) + "  " + string(c.Type) + " conflict · " + status +
			st.Muted.Render(fmt.Sprintf(" · version %d · detected %s", c.Version, c.DetectedBy)) + escalationNote(st, c),
		lineOf(c.Description),
	}
	if d := c.Detection; d != nil {
		// Why the field found it, nobody having declared it.
		lines = append(lines, st.Muted.Render("Detected by the field: ")+lineOf(d.Summary())+
			st.Muted.Render(" · A ")+lineOf(model.Quoted(d.PhraseA.Text))+st.Muted.Render(" · B ")+lineOf(model.Quoted(d.PhraseB.Text)))
	}
	lines = append(lines, v.rulesLine(st))
	if j, ok := model.JoinOf(v.detail.Events); ok {
		lines = append(lines, st.Muted.Render("Joined: "+safetext.Line(model.JoinLine(j))))
	}
	if routed(c) {
		lines = append(lines, routeLine(st, c, who.id, who.now))
	}
	if proposed(c) {
		lines = append(lines, proposalLine(st, k, c, who.answers))
	}
	if v.voteShown() {
		lines = append(lines, voteLines(st, v.detail, ballots)...)
	}
	if r := c.Resolution; r != nil && r.Strategy == model.Vote && len(v.detail.Ballots) > 0 {
		// Closed by the ballots, not by whoever cast the last one.
		lines = append(lines, st.Success.Render("Resolved")+" by vote, "+ballotsOf(v.detail)+winnerNote(r))
	} else if r != nil {
		lines = append(lines, st.Success.Render("Resolved")+" by "+safetext.Line(r.ResolvedBy)+" with "+string(r.Strategy)+
			winnerNote(r)+st.Muted.Render(" — "+lineOf(r.Rationale)))
	}
	if v.notice != "" {
		lines = append(lines, st.Warn.Render("⚠ "+safetext.Line(v.notice))) // it names who changed it
	}
	return append(lines, v.offerLines(st, k, who)...)
}

// conflictScreen is the open conflict: both units side by side.
type conflictScreen struct{}

func (conflictScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd { return m.conflictKey(msg) }
func (conflictScreen) help(m *Model) []key.Binding               { return m.conflictHelp() }
func (conflictScreen) place(*Model) keymap.Context               { return keymap.InConflict }

func (conflictScreen) view(m *Model, w, h int) string {
	if err := m.conflict.err; err != nil {
		return strings.Join(wrapLines(m.styles.Error.Render(plainError(err)), w), "\n")
	}
	return m.conflict.view(m.styles, m.keys, m.onlooker())
}

// onlooker is the person at the screen, looking at the conflict now.
func (m *Model) onlooker() onlooker {
	return onlooker{id: m.me.ID, now: m.now(), answers: m.answersProposal(),
		decides: m.notYours() == "", votes: m.canDecide() == "" && mayBallot(m.me, m.conflict.detail)}
}

func (conflictScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(tea.MouseWheelMsg); ok {
		m.conflictWheel(msg)
	}
	return nil
}
