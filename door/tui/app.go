// Package tui is arbiter's review screen: the queue of conflicts waiting
// for people, the two units side by side, and the forms that write a
// decision or a vote. It talks to the field only through review.
package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/queueview"
	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/service/review"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Minimum terminal size the screen draws in.
const minWidth, minHeight = 60, 16

// Options configure the screen.
type Options struct {
	// Field names the field in the header (usually its path).
	Field string
	// As is the caller's agent id: the person deciding and voting.
	As string
	// Theme is "auto" (from the terminal's background), "dark" or "light".
	Theme string
	// NoColor draws without colour (NO_COLOR).
	NoColor bool
	// Keys are the bindings (keymap.New applies a config's rebindings);
	// the zero Map means the defaults.
	Keys keymap.Map
	// Now tells the time; tests fix it. Defaults to time.Now.
	Now func() time.Time
	// Context is the session's: when it ends, every command the screen
	// started (reads, writes, the watch on the field) stops. Run gives
	// it; defaults to a context that never ends.
	Context context.Context
	// UndoWindow is how long a decision made on the screen waits before
	// it is written; 0 means undoWindow (5 s).
	UndoWindow time.Duration
	// Views are the queue's named filters, shown as tabs (views.go).
	Views []queueview.View
	// SweepEvery is how often the screen does what the field's
	// deadlines ask for (sweep.go) on a field it may write; 0: never.
	SweepEvery time.Duration
}

// Model is the root of the screen.
type Model struct {
	viewContext
	svc   review.Desk
	opt   Options
	help  help.Model
	md    *markdown
	cache map[mdKey]formatted
	three threeCache

	me       model.Agent
	meErr    error
	agents   []model.Agent
	policy   model.Policy
	readOnly string
	// gone says why the field's file is no longer at its path, as the
	// watch found (the store refuses every read and write meanwhile).
	gone string

	// Quick decisions, their undo window and what they wrote.
	prompt    *prompt
	pending   *pending
	pendingID int
	// unanswered are the decisions started and not yet answered for, by id:
	// the one pending, and any still being written or taken back.
	unanswered map[int]*pending
	// heldElsewhere: the field holds decisions of the person from a
	// screen that ended, which a sweep is to write (held.go).
	heldElsewhere bool
	// heldAsking counts the held reports on their way: a change seen
	// meanwhile asks again, as the answer may predate it.
	heldAsking  int
	recent      []string         // rationales used, most recent first
	marks       map[string]bool  // marked rows, by conflict id
	written     map[string]int64 // the version each of our own writes left
	batchReport string           // how the last batch went
	lastClick   click
	quitting    bool // quit once every decision is answered for (settled)
	sweepFailed bool // the last sweep failed, and said so
	watching    bool // the field is watched for changes
	// synthAfter is the conflict whose decision form opens on the
	// synthesis once it is read (synthesize, from the queue).
	synthAfter string
	// keyAfterLoad is a key pressed on a conflict before it was read,
	// which acts once it is (detailLoaded).
	keyAfterLoad *pressedOn
	// stats is the stats screen's figures (stats.go).
	stats statsState
	// inbox is the person's notices (inbox.go); news, the header's count
	// of the unread and the toasts (news.go); drafts, the forms' drafts
	// kept in the field (drafts.go).
	inbox  inboxState
	news   newsState
	drafts draftsState
	// helpState is the help's scroll and lines (help.go).
	helpState helpState
	// preview is the preview beside the queue (preview.go).
	preview previewState

	width, height int
	// stack is the screens, the one in front last (screens.go); the
	// queue is always at the bottom.
	stack    []screen
	queue    queue
	conflict conflictView
	// held is the conflicts the screen holds: the open one, and those
	// left with a draft on them (open.go).
	held    map[string]*openConflict
	version int64
	flash   string
	// flashKept: the flash stays until the next key (tell).
	flashKept bool
	queueSeq  int
	footer    string
	flashID   int
	// keysIgnored counts the keys pressed while the terminal was too
	// small (tooSmallView).
	keysIgnored int
}

// New builds the screen over svc.
func New(svc review.Desk, opt Options) *Model {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	k := opt.Keys
	if k.IsZero() {
		k = keymap.Default()
	}
	md := newMarkdown()
	md.rawKey = keyOf(k.Raw)
	m := &Model{viewContext: viewContext{ctx: opt.Context, now: opt.Now, keys: k}, svc: svc, opt: opt, help: help.New(), md: md,
		cache: map[mdKey]formatted{}, queue: newQueue(), stack: []screen{queueScreen{}},
		conflict: newConflictView(&openConflict{}), held: map[string]*openConflict{},
		marks: map[string]bool{}, written: map[string]int64{}, unanswered: map[int]*pending{}}
	m.queue.tabs = len(opt.Views) > 0
	m.setTheme(Theme{Dark: opt.Theme != "light", NoColor: opt.NoColor})
	if ro, why := svc.ReadOnly(); ro {
		m.readOnly = why
	}
	return m
}

type identityMsg struct {
	me     model.Agent
	agents []model.Agent
	policy model.Policy
	err    error
}

// Init loads who the caller is and the queue, and starts watching the
// field for writers.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadIdentity(), m.sweepAfter(0)} // the watch starts with the queue (queueLoaded)
	if m.opt.As == "" {
		cmds = append(cmds, m.loadQueue(firstPage)) // else once the person is known
	}
	if m.opt.Theme == "" || m.opt.Theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

func (m *Model) loadIdentity() tea.Cmd {
	ctx, svc, as := m.ctx, m.svc, m.opt.As
	return func() tea.Msg {
		agents, err := svc.Agents(ctx)
		if err != nil {
			return identityMsg{err: err}
		}
		p, err := svc.Policy(ctx)
		if err != nil {
			return identityMsg{err: err}
		}
		me, err := svc.Agent(ctx, as)
		return identityMsg{me: me, agents: agents, policy: p, err: err}
	}
}

func (m *Model) reloadQueue() tea.Cmd {
	return m.loadQueue(m.queueLimit())
}

// loadQueue reads the queue's first limit rows, ordered for the person
// at the screen. Until the field has said who the person named is, it
// reads nothing: the answer to who they are loads the queue, and a queue
// read before it (a sweep's change) would place the cursor without the
// person's turn, where it would stay.
func (m *Model) loadQueue(limit int) tea.Cmd {
	if m.opt.As != "" && m.me.ID == "" && m.meErr == nil {
		return nil
	}
	m.queueSeq++
	q := m.queue.query(limit)
	if m.me.ID != "" {
		q.For, q.Mine = model.ViewerOf(m.policy, m.me, m.now()), m.queue.mineOnly
	}
	return loadQueue(m.ctx, m.svc, q, m.queueSeq, m.me.ID, m.news.tail)
}

func (m *Model) queueLimit() int { return max(queuePage, m.queue.fetched) }

func (m *Model) setTheme(t Theme) {
	m.styles = NewStyles(t)
	m.help.Styles = help.DefaultStyles(t.Dark)
	m.stats.lines = nil // drawn in the old colours
}

// canDecide says why the caller cannot write decisions ("" if they can).
func (m *Model) canDecide() string {
	switch {
	case m.readOnly != "":
		return "the field is read-only (" + m.readOnly + ")"
	case m.gone != "":
		return m.gone
	case m.opt.As == "":
		return "nobody is named as the caller: start arbiter with --as ID"
	case m.meErr != nil:
		return plainError(m.meErr)
	}
	return ""
}

// View draws the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "arbiter"
	return v
}

func (m *Model) render() string {
	if m.width == 0 {
		return ""
	}
	if m.tooSmall() {
		return m.tooSmallView()
	}
	header := m.headerView()
	footer := m.footer
	if footer == "" {
		footer = m.footerView()
	}
	if m.prompt != nil {
		footer = m.promptView()
	}
	bodyH := m.bodyHeight()
	body := m.withToast(fitHeight(m.top().view(m, m.width, bodyH), bodyH), m.width, bodyH)
	if over := strings.Count(footer, "\n") + 1 - max(1, m.promptHeight()); over > 0 {
		// A message that wraps takes its lines from the body's bottom
		// while it shows: the body keeps its layout.
		bodyH = max(1, bodyH-over)
	}
	return header + "\n" + fitHeight(body, bodyH) + "\n" + footer
}

// tooSmall reports whether the terminal is too small to draw the screen
// in: it then says so, and only the quit keys work.
func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

// tooSmallView says the terminal is too small, wrapped at words to its
// width, and how many keys were set aside meanwhile: a key pressed does
// nothing on a screen nobody sees, and the person is told so.
func (m *Model) tooSmallView() string {
	s := fmt.Sprintf("Terminal too small: arbiter needs %d×%d, this one is %d×%d. Enlarge it, or press %s to quit.",
		minWidth, minHeight, m.width, m.height, keyOf(m.quitKey()))
	switch {
	case m.keysIgnored == 1:
		s += " 1 key ignored until it is larger."
	case m.keysIgnored > 1:
		s += fmt.Sprintf(" %d keys ignored until it is larger.", m.keysIgnored)
	}
	return strings.Join(wrapLines(s, m.width), "\n")
}

// bodyHeight is the height between the header and the footer (or the
// quick decision's prompt, which may take more than one line).
func (m *Model) bodyHeight() int {
	return max(1, m.height-1-max(1, m.promptHeight()))
}

func (m *Model) headerView() string {
	st := m.styles
	who := st.Muted.Render("as ") + safetext.Line(m.opt.As)
	if m.me.ID != "" {
		who += st.Muted.Render(fmt.Sprintf(" (%s, %s, authority %d)", safetext.Line(m.me.Role), m.me.Kind, m.me.Authority))
	} else if m.opt.As == "" {
		who = st.Muted.Render("read-only: decide with --as ID")
	}
	rest := "  " + who
	if m.readOnly != "" {
		rest += "  " + st.ReadOnly.Render("READ-ONLY")
	}
	if m.gone != "" {
		rest += "  " + st.Error.Render("FIELD FILE GONE") // a decision key says why
	}
	if file, ok := m.svc.Offline(); ok {
		rest += "  " + st.ReadOnly.Render("OFFLINE") + st.Muted.Render(" decisions go to "+safetext.Line(file))
	}
	if p, ok := m.svc.(review.Poller); ok && p.Polling() != "" {
		rest += "  " + st.Warn.Render("POLLING") + st.Muted.Render(" "+p.Polling())
	}
	right := m.unreadView()
	badge := st.Badge.Render("arbiter") + " "
	room := m.width - ansi.StringWidth(badge+rest)
	if right != "" {
		room -= ansi.StringWidth(right) + 2
	}
	// A field's name too long for the line gives way first, keeping its
	// end (the file's name): the person and the unread count stay.
	name := safetext.Line(m.opt.Field)
	switch w := ansi.StringWidth(name); {
	case w <= room:
	case room < 6:
		name, badge = "", st.Badge.Render("arbiter")
	default:
		name = "…" + ansi.TruncateLeft(name, w-room+1, "")
	}
	left := badge + st.Muted.Render(name) + rest
	if right == "" {
		return ansi.Truncate(left, m.width, "…")
	}
	// The unread count keeps its place on the right.
	left = ansi.Truncate(left, max(0, m.width-ansi.StringWidth(right)-2), "…")
	return left + strings.Repeat(" ", max(2, m.width-ansi.StringWidth(left)-ansi.StringWidth(right))) + right
}

func (m *Model) footerView() string {
	line := m.footerHelp(m.shortHelpKeys())
	switch {
	case m.flash != "":
		// In full, wrapped to at most three lines; under the decision
		// waiting, if one does.
		lines := wrapLines(m.styles.Warn.Render(safetext.Line(m.flash)), m.width)
		if m.pending != nil {
			lines = append([]string{m.pendingLine()}, lines...)
		}
		if len(lines) > 3 {
			lines = lines[:3]
		}
		for i, l := range lines {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
		return strings.Join(lines, "\n")
	case m.pending != nil:
		line = m.pendingLine()
	}
	return ansi.Truncate(line, m.width, "…")
}

// say shows a one-line message in the footer for a few seconds.
func (m *Model) say(s string) tea.Cmd {
	m.flashID++
	m.flash, m.flashKept = s, false
	id := m.flashID
	return m.after(4*time.Second, flashClearMsg{id: id})
}

// tell shows a message in the footer until the person presses a key:
// for what they must not miss.
func (m *Model) tell(s string) {
	m.flashID++
	m.flash, m.flashKept = s, true
}

// plainError turns an error into one plain sentence for a person, safe to
// show: errors quote ids and text from the field.
func plainError(err error) string {
	if pe, ok := model.AsError(err); ok {
		s := pe.Message
		if a := pe.SuggestedAction; a != "" && !saysAlready(s, a) {
			s += " (" + a + ")"
		}
		return safetext.Line(s)
	}
	return safetext.Line(err.Error())
}

// saysAlready reports whether message already says what action
// suggests, past its first word: "only lead-tomas, its owner, or a human
// operator (authority 10) may decide it" says "ask lead-tomas, its owner,
// or a human operator (authority 10)".
func saysAlready(message, action string) bool {
	_, rest, ok := strings.Cut(action, " ")
	return ok && len(rest) > 3 && strings.Contains(message, rest)
}

// window shows s in h lines around line focus (a third of the way
// down), when s is taller than h: a line above says how much more is
// above, one below how much is below, and what hint says.
func window(st Styles, s string, focus, h int, hint string) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= h {
		return s
	}
	rows := max(1, h-2)
	return windowAt(st, lines, max(0, min(focus-rows/3, len(lines)-rows)), h, hint)
}

// windowAt shows h lines of lines from line start, with the lines that
// say what is above and below.
func windowAt(st Styles, lines []string, start, h int, hint string) string {
	if len(lines) <= h {
		return strings.Join(lines, "\n")
	}
	start = max(0, min(start, len(lines)-max(1, h-2)))
	var out []string
	if start > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("↑ %d more lines above", start)))
	}
	end := min(len(lines), start+h-len(out))
	if end < len(lines) {
		end = max(start+1, end-1) // room for the line below
	}
	out = append(out, lines[start:end]...)
	if end < len(lines) {
		out = append(out, st.Muted.Render(fmt.Sprintf("↓ %d more lines below", len(lines)-end)+hint))
	}
	return strings.Join(out, "\n")
}

// fitHeight cuts s to h lines, or pads it with empty ones.
func fitHeight(s string, h int) string {
	n := strings.Count(s, "\n") + 1
	if n > h {
		cut := 0
		for range h {
			cut += strings.IndexByte(s[cut:], '\n') + 1
		}
		return s[:cut-1]
	}
	return s + strings.Repeat("\n", h-n)
}
