package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The inbox is the person's notices, newest first, each whole (the
// summary wrapped), those they had not read marked; enter opens the
// notice's conflict. Opening it reads the newest page and marks the
// notices read up to the newest shown (the field keeps the mark, so the
// header's count is the same on every screen of theirs); the marks on
// screen stay as they were when it opened. More pages come as the cursor
// nears the end.

// inboxPage is how many notices one read brings.
const inboxPage = 200

// inboxState is the inbox's notices, cursor and drawing.
type inboxState struct {
	loaded  bool
	err     error
	notices []model.Notification
	// unread: the first unread notices were not read when it opened;
	// more: older ones are still to read.
	unread      int
	more        bool
	cursor, top int
	// loading: a page is on its way; seq numbers the reads, so that a
	// read overtaken by a later one is dropped.
	loading bool
	seq     int
	// said: the read mark could not be kept, and the person was told.
	said bool
	// bodies are each notice's summary wrapped at width w; body is the
	// frame's text, drawn in prepare.
	bodies map[int64][]string
	w      int
	body   string
}

type (
	inboxLoadedMsg struct {
		seq    int
		before int64
		page   model.InboxPage
		err    error
	}
	inboxMarkedMsg struct{ err error }
)

// openInbox shows the inbox and reads its newest page.
func (m *Model) openInbox() tea.Cmd {
	m.push(inboxScreen{})
	m.inbox.cursor, m.inbox.top = 0, 0
	return m.loadInbox(0)
}

// loadInbox reads the page of notices before the one numbered before
// (0: the newest).
func (m *Model) loadInbox(before int64) tea.Cmd {
	s := &m.inbox
	r, ok := m.svc.(inboxReader)
	switch {
	case !ok:
		s.loaded, s.err = true, errNoInbox
		return nil
	case m.opt.As == "":
		s.loaded, s.err = true, errNobody
		return nil
	}
	s.seq++
	s.loading = true
	ctx, as, seq := m.ctx, m.opt.As, s.seq
	return func() tea.Msg {
		p, err := r.InboxPage(ctx, as, before, inboxPage)
		return inboxLoadedMsg{seq: seq, before: before, page: p, err: err}
	}
}

type inboxRefusal string

func (e inboxRefusal) Error() string { return string(e) }

var (
	errNoInbox error = inboxRefusal("this file keeps no notices: they are read from an arbiter field")
	errNobody  error = inboxRefusal("nobody is named as the caller: start arbiter with --as ID to read your notices")
)

// inboxLoaded shows a page: the newest in place of what was shown,
// keeping the cursor on its notice, or an older one after it. The
// newest page marks what it shows read.
func (m *Model) inboxLoaded(msg inboxLoadedMsg) tea.Cmd {
	s := &m.inbox
	if msg.seq != s.seq {
		return nil
	}
	s.loading, s.loaded, s.err = false, true, msg.err
	if msg.err != nil {
		return nil
	}
	s.more = msg.page.More
	if msg.before != 0 {
		s.notices = append(s.notices, msg.page.Notices...)
		return nil
	}
	var at int64
	if s.cursor < len(s.notices) {
		at = s.notices[s.cursor].ID
	}
	s.notices, s.unread = msg.page.Notices, msg.page.Unread
	s.cursor = max(0, slices.IndexFunc(s.notices, func(n model.Notification) bool { return n.ID == at }))
	if len(s.notices) == 0 || msg.page.Unread == 0 {
		return nil
	}
	r := m.svc.(inboxReader)
	ctx, as, newest := m.ctx, m.opt.As, s.notices[0].ID
	return func() tea.Msg { return inboxMarkedMsg{err: r.InboxRead(ctx, as, newest)} }
}

// inboxMarked counts the unread again once the mark is kept, or says
// once that it cannot be (a field open read-only).
func (m *Model) inboxMarked(msg inboxMarkedMsg) tea.Cmd {
	if msg.err == nil {
		return m.lookForNews()
	}
	if m.inbox.said {
		return nil
	}
	m.inbox.said = true
	return m.say("What you read is not kept: " + plainError(msg.err))
}

// inboxGrew reads the newest page again when the inbox is in front and
// new notices came.
func (m *Model) inboxGrew() tea.Cmd {
	if m.top() != (inboxScreen{}) {
		return nil
	}
	return m.loadInbox(0)
}

func (m *Model) inboxKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.inbox
	k := m.keys
	page := max(1, len(m.inboxShown(m.width, m.bodyHeight()))-1)
	switch {
	case key.Matches(msg, k.Back, k.Inbox):
		m.pop()
		return nil
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.push(helpScreen{under: inboxScreen{}})
		return nil
	case key.Matches(msg, k.Refresh):
		return m.loadInbox(0)
	case key.Matches(msg, k.Open):
		return m.openNotice()
	case key.Matches(msg, k.Up):
		s.cursor--
	case key.Matches(msg, k.Down):
		s.cursor++
	case key.Matches(msg, k.PageUp):
		s.cursor -= page
	case key.Matches(msg, k.PageDown):
		s.cursor += page
	case key.Matches(msg, k.Top):
		s.cursor = 0
	case key.Matches(msg, k.Bottom):
		s.cursor = len(s.notices)
	}
	s.cursor = max(0, min(s.cursor, len(s.notices)-1))
	return m.moreNotices()
}

// moreNotices reads the next page when the cursor nears the end of
// what is read.
func (m *Model) moreNotices() tea.Cmd {
	s := &m.inbox
	if s.loading || !s.more || s.cursor < len(s.notices)-inboxPage/4 {
		return nil
	}
	return m.loadInbox(s.notices[len(s.notices)-1].ID)
}

// openNotice opens the conflict of the notice under the cursor.
func (m *Model) openNotice() tea.Cmd {
	s := &m.inbox
	if s.cursor >= len(s.notices) {
		return nil
	}
	n := s.notices[s.cursor]
	if n.ConflictID == nil {
		return m.say("This notice is about the field, not a conflict: there is nothing to open.")
	}
	return m.open(*n.ConflictID)
}

// inboxScreen is the person's notices.
type inboxScreen struct{}

func (inboxScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd { return m.inboxKey(msg) }
func (inboxScreen) update(*Model, tea.Msg) tea.Cmd            { return nil }

func (inboxScreen) help(m *Model) []key.Binding {
	k := m.keys
	return []key.Binding{k.Down, k.Up, k.Open, k.Back, k.Help, k.Quit}
}

func (inboxScreen) view(m *Model, w, h int) string {
	if m.inbox.body == "" || m.inbox.w != w {
		inboxScreen{}.prepare(m)
	}
	return m.inbox.body
}

// prepare draws the inbox for the frame: the title, then the notices
// from the top one that keeps the cursor's notice in view.
func (inboxScreen) prepare(m *Model) {
	s := &m.inbox
	w, h := m.width, m.bodyHeight()
	st := m.styles
	switch {
	case !s.loaded:
		s.body = st.Muted.Render("Reading your notices…")
		return
	case s.err != nil:
		s.body = strings.Join(wrapLines(st.Error.Render("No notices: "+plainError(s.err)), w), "\n")
		return
	case len(s.notices) == 0:
		s.body = m.inboxTitle() + "\n\n" + strings.Join(wrapLines(st.Muted.Render("No notices yet. One comes when a conflict you are part of changes: a vote opens or closes, something is escalated to you, a decision is made. "+keyOf(m.keys.Back)+" goes back."), w), "\n")
		return
	}
	var out []string
	for _, lines := range m.inboxShown(w, h) {
		out = append(out, lines...)
	}
	s.body = m.inboxTitle() + "\n" + fitHeight(strings.Join(out, "\n"), h-1)
}

// inboxShown is the notices that fit in h lines under the title, each
// as its lines, with the cursor's in view; it moves the top to keep it.
func (m *Model) inboxShown(w, h int) [][]string {
	s := &m.inbox
	if s.w != w || s.bodies == nil || len(s.bodies) > 4*inboxPage {
		s.bodies, s.w = map[int64][]string{}, w
	}
	room := h - 1
	s.top = min(s.top, s.cursor)
	for s.top < s.cursor {
		used := 0
		for i := s.top; i <= s.cursor; i++ {
			used += len(m.noticeLines(i, w))
		}
		if used <= room {
			break
		}
		s.top++
	}
	var out [][]string
	used := 0
	for i := s.top; i < len(s.notices) && used < room; i++ {
		lines := m.noticeLines(i, w)
		out = append(out, lines)
		used += len(lines)
	}
	return out
}

// noticeLines is notice i: its line of when, what and which conflict,
// marked when unread and when under the cursor, then its summary whole,
// wrapped (drawn once per width).
func (m *Model) noticeLines(i, w int) []string {
	s := &m.inbox
	st := m.styles
	n := s.notices[i]
	body, ok := s.bodies[n.ID]
	if !ok {
		body = wrapLines(safetext.Line(n.Summary), w-4)
		for j, l := range body {
			body[j] = "    " + l
		}
		s.bodies[n.ID] = body
	}
	mark, cursor := "  ", "  "
	if i < s.unread {
		mark = st.Warn.Render("● ")
	}
	what := noticeKind(n.Event)
	about := "the field"
	if n.ConflictID != nil {
		about = safetext.Line(*n.ConflictID)
	}
	head := fmt.Sprintf("%s · %s", about, what)
	if n.RequiresAction {
		head += " · asks you to act"
	}
	head = cell(head, w-4-9) + st.Muted.Render(fmt.Sprintf("%9s", ago(m.now(), n.CreatedAt)))
	if i == s.cursor {
		cursor = st.Key.Render("▸ ")
		head = st.Selected.Render(head)
	} else if i < s.unread {
		head = st.Bold.Render(head)
	}
	return append([]string{cursor + mark + head}, body...)
}

// inboxTitle says how many notices were unread.
func (m *Model) inboxTitle() string {
	s := &m.inbox
	st := m.styles
	t := st.Title.Render("Inbox") + st.Muted.Render(" · your notices, newest first")
	if s.unread > 0 {
		return t + st.Muted.Render(" · ") + st.Warn.Render(fmt.Sprintf("● %d unread", s.unread))
	}
	return t + st.Muted.Render(" · all read")
}

// ago says how long ago t was: "just now", "12m ago".
func ago(now, t time.Time) string {
	if a := age(now, t); a != "now" {
		return a + " ago"
	}
	return "just now"
}

// noticeKind names a notice's event in a word or two.
func noticeKind(event string) string {
	switch event {
	case model.EventVoteOpened:
		return "vote opened"
	case model.EventVoteCast:
		return "vote cast"
	case model.EventVoteClosed:
		return "vote closed"
	case model.EventConflictRework:
		return "sent back"
	case model.EventConflictTimeout:
		return "deadline passed"
	case model.EventPolicyChanged:
		return "policy changed"
	}
	_, what, _ := strings.Cut(event, ".")
	return safetext.Line(what)
}
