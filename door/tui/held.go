package tui

import (
	"context"
	"slices"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	tea "charm.land/bubbletea/v2"
)

// What the screen does about decisions held in the field when a screen
// ends: the one ending writes what it still holds (leave); the next one
// of the same person says what came of those a sweep wrote for a screen
// that ended without (heldReport), and, while the field still holds some
// for a sweep to write, asks again at each change.

// leaveTimeout bounds how long a screen that ended spends writing what it
// held.
const leaveTimeout = 10 * time.Second

// leave writes, once the screen has ended, every decision it still held
// in an undo window that nobody can use any more: through the field that
// holds it (a refusal then goes to the person's inbox), or, held here,
// request by request. A decision undone while the field was storing it
// is taken back. Whatever this misses — the process killed meanwhile —
// the field still holds, and its next sweep writes.
func (m *Model) leave(ctx context.Context) {
	if len(m.unanswered) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaveTimeout)
	defer cancel()
	h, held := m.holder()
	hw, _ := m.highway()
	ids := make([]int, 0, len(m.unanswered))
	for id := range m.unanswered {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := m.unanswered[id]
		switch {
		case p.held != nil && held && p.undone.Load():
			h.Unhold(ctx, m.opt.As, p.held)
		case p.held != nil && held:
			h.LeaveHeld(ctx, p.held)
		case p.held == nil && !p.writing && !p.holding && !p.undone.Load():
			writeEach(ctx, m.svc, hw, m.opt.As, p)
		}
	}
}

// heldReportMsg is what came of the person's decisions held by screens
// that ended: done (written or refused, which the field now forgets) and
// waiting (still held, for a sweep).
type heldReportMsg struct {
	done, waiting []model.HeldDecision
	err           error
}

// heldReport asks the field what came of the person's held decisions.
func (m *Model) heldReport() tea.Cmd {
	h, ok := m.holder()
	if !ok || m.opt.As == "" {
		return nil
	}
	ctx, as := m.ctx, m.opt.As
	m.heldAsking++
	return func() tea.Msg {
		done, waiting, err := h.HeldReport(ctx, as)
		return heldReportMsg{done: done, waiting: waiting, err: err}
	}
}

// heldReported tells the person, until they press a key, what came of
// decisions a screen of theirs held when it ended.
func (m *Model) heldReported(msg heldReportMsg) tea.Cmd {
	m.heldAsking = max(0, m.heldAsking-1)
	if msg.err != nil {
		return nil // the screen's own reads say when the field fails
	}
	var waiting []model.HeldDecision
	for _, w := range msg.waiting {
		if !m.holds(w.ID) {
			waiting = append(waiting, w)
		}
	}
	m.heldElsewhere = len(waiting) > 0
	if s := heldNews(msg.done, waiting); s != "" {
		m.tell(s)
	}
	if len(msg.done) > 0 {
		return m.reloadQueue()
	}
	return nil
}

// holds reports whether the field's held decision id is one of this
// screen's.
func (m *Model) holds(id string) bool {
	for _, p := range m.unanswered {
		if slices.Contains(p.held, id) {
			return true
		}
	}
	return false
}

// heldNews is the line that says what came of decisions held when a
// screen ended: "" for none.
func heldNews(done, waiting []model.HeldDecision) string {
	var written, refused, held []string
	for _, h := range done {
		what := safetext.Line(h.Describe())
		if h.Outcome == "" {
			written = append(written, what)
		} else {
			refused = append(refused, what+" — "+safetext.Line(h.Outcome))
		}
	}
	for _, h := range waiting {
		held = append(held, safetext.Line(h.Describe()))
	}
	var parts []string
	if len(refused) > 0 {
		parts = append(parts, "Not written after your screen closed (your inbox has it): "+strings.Join(refused, "; "))
	}
	if len(written) > 0 {
		parts = append(parts, "Written after your screen closed: "+strings.Join(written, "; "))
	}
	if len(held) > 0 {
		parts = append(parts, "Held from a screen that closed, for the field's sweep to write: "+strings.Join(held, "; "))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ". ") + "."
}
