package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// What reached the person's inbox while the screen is open: the header
// counts the unread notices, and a toast says, for a few seconds, when
// something they took part in closed or changed (review.InboxNews says
// which). The screen looks with every read of the queue (when the
// person is known, and whenever the field changes), so that the count
// shows with the queue it goes with. A toast is drawn over the body's
// last lines and takes no key.

// inboxReader is a desk that keeps notices: a field; another program's
// file has none.
type inboxReader interface {
	InboxPage(ctx context.Context, agentID string, before int64, limit int) (model.InboxPage, error)
	InboxRead(ctx context.Context, agentID string, id int64) error
	InboxNews(ctx context.Context, agentID string, since int64) (model.InboxNews, error)
}

// toastFor is how long a toast shows.
const toastFor = 8 * time.Second

// maxToasts is the most toasts kept waiting; older ones give way.
const maxToasts = 5

// newsState is the header's count and the toasts showing.
type newsState struct {
	// looked: the first look is done; tail is the newest notice seen.
	looked bool
	tail   int64
	unread int
	// busy: a look is on its way; again: the field changed meanwhile.
	busy, again bool
	toasts      []toast
}

// toast is a notice's few words, shown until until.
type toast struct {
	text  string
	until time.Time
}

type (
	newsMsg struct {
		since int64
		news  model.InboxNews
		err   error
	}
	// toastTickMsg asks the screen to drop the toasts whose time is up.
	toastTickMsg struct{}
)

// lookForNews asks the field what reached the person since the newest
// notice seen; one look at a time, another after it if the field changed
// meanwhile.
func (m *Model) lookForNews() tea.Cmd {
	r, ok := m.svc.(inboxReader)
	if !ok || m.me.ID == "" {
		return nil
	}
	if m.news.busy {
		m.news.again = true
		return nil
	}
	m.news.busy = true
	ctx, as, since := m.ctx, m.me.ID, m.news.tail
	return func() tea.Msg {
		n, err := r.InboxNews(ctx, as, since)
		return newsMsg{since: since, news: n, err: err}
	}
}

// readNews is what reached as's inbox after their notice since, nil
// when the desk keeps no notices or they cannot be read (the count waits
// for the next look).
func readNews(ctx context.Context, svc any, as string, since int64) *model.InboxNews {
	r, ok := svc.(inboxReader)
	if !ok {
		return nil
	}
	n, err := r.InboxNews(ctx, as, since)
	if err != nil {
		return nil
	}
	return &n
}

// takeNews counts the unread and shows a toast for each notice that
// calls for one; the first look makes none of the past. News read after
// a notice other than the newest seen is stale, and dropped.
func (m *Model) takeNews(since int64, n *model.InboxNews) tea.Cmd {
	if n == nil || since != m.news.tail {
		return nil
	}
	var cmds []tea.Cmd
	m.news.unread, m.news.tail = n.Unread, n.Tail
	if m.news.looked {
		cmds = append(cmds, m.toast(n.Toasts))
	}
	m.news.looked = true
	if n.Tail != since {
		cmds = append(cmds, m.inboxGrew())
	}
	return tea.Batch(cmds...)
}

// newsArrived takes what a look for news found.
func (m *Model) newsArrived(msg newsMsg) tea.Cmd {
	m.news.busy = false
	var cmds []tea.Cmd
	if msg.err == nil {
		cmds = append(cmds, m.takeNews(msg.since, &msg.news))
	}
	if m.news.again {
		m.news.again = false
		cmds = append(cmds, m.lookForNews())
	}
	return tea.Batch(cmds...)
}

// toast shows ts for toastFor each, the newest last.
func (m *Model) toast(ts []model.Toast) tea.Cmd {
	if len(ts) == 0 {
		return nil
	}
	until := m.now().Add(toastFor)
	for _, t := range ts {
		m.news.toasts = append(m.news.toasts, toast{text: t.Text, until: until})
	}
	if n := len(m.news.toasts); n > maxToasts {
		m.news.toasts = m.news.toasts[n-maxToasts:]
	}
	return m.after(toastFor, toastTickMsg{})
}

// toastTick drops the toasts whose time is up, on the screen's clock,
// and asks again for those left.
func (m *Model) toastTick() tea.Cmd {
	now := m.now()
	kept := m.news.toasts[:0]
	for _, t := range m.news.toasts {
		if now.Before(t.until) {
			kept = append(kept, t)
		}
	}
	m.news.toasts = kept
	if len(kept) == 0 {
		return nil
	}
	return m.after(max(time.Second, kept[0].until.Sub(now)), toastTickMsg{})
}

// unreadView is the header's count of unread notices, and the key that
// shows them where it does; "" when there are none.
func (m *Model) unreadView() string {
	if m.news.unread == 0 {
		return ""
	}
	out := m.styles.Warn.Render(fmt.Sprintf("%d unread", m.news.unread))
	if m.inboxKeyWorks() {
		out += m.styles.Muted.Render(" · " + keyOf(m.keys.Inbox))
	}
	return out
}

// inboxKeyWorks reports whether the inbox key works on the screen in
// front: the queue, a conflict, the figures, the inbox itself.
func (m *Model) inboxKeyWorks() bool {
	switch m.top().(type) {
	case queueScreen, conflictScreen, statsScreen, inboxScreen:
		return m.prompt == nil && !m.queue.editing
	}
	return false
}

// withToast draws the newest toast over the last lines of body (h lines
// of w cells): wrapped at words, at most three lines, on the right.
func (m *Model) withToast(body string, w, h int) string {
	if len(m.news.toasts) == 0 {
		return body
	}
	st := m.styles
	t := m.news.toasts[len(m.news.toasts)-1]
	text := "◆ " + safetext.Line(t.text)
	if more := len(m.news.toasts) - 1; more > 0 && m.inboxKeyWorks() {
		text += fmt.Sprintf(" (and %d more: %s shows them)", more, keyOf(m.keys.Inbox))
	} else if more > 0 {
		text += fmt.Sprintf(" (and %d more in the inbox)", more)
	}
	room := min(w, max(40, w*2/3))
	lines := wrapLines(text, room-2)
	if len(lines) > 3 {
		lines = append(lines[:2], ansi.Truncate(lines[2], room-3, "…"))
	}
	rows := strings.Split(body, "\n")
	if len(rows) < h {
		rows = append(rows, make([]string, h-len(rows))...)
	}
	for i, l := range lines {
		row := len(rows) - len(lines) + i
		if row < 0 {
			continue
		}
		left := ansi.Truncate(rows[row], max(0, w-room), "")
		left += strings.Repeat(" ", max(0, w-room-ansi.StringWidth(left)))
		rows[row] = left + st.Selected.Render(" "+l+strings.Repeat(" ", max(0, room-2-ansi.StringWidth(l)))+" ")
	}
	return strings.Join(rows, "\n")
}
