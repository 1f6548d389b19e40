package tui

import (
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A decision made on the screen waits a moment before it is written: the
// undo window. It is written when the window closes, or at once when the
// person quits or decides again; undo takes it back and nothing reaches
// the field.

// undoWindow is how long a decision waits to be written.
const undoWindow = 5 * time.Second

// pending is a decision waiting for its window to close.
type pending struct {
	id      int
	label   string
	reqs    []model.MergeRequest
	votes   []model.VoteRequest
	reworks []model.ReworkRequest
	// left is how long the window stays open: it counts down with the
	// ticks, so that the window is the same whatever the clock says.
	left    time.Duration
	writing bool
	// form is the conflict whose form made the decision ("" for a quick
	// decision): its answer goes back to the form.
	form string
}

type (
	// pendingTickMsg counts the window down by step.
	pendingTickMsg struct {
		id   int
		step time.Duration
	}
	// pendingDoneMsg is what writing a pending decision gave.
	pendingDoneMsg struct {
		id      int
		label   string
		form    string // the form that made it, which shows the answer
		results []written
	}
)

// written is one conflict's answer to a pending decision.
type written struct {
	conflict string
	merge    *model.MergeResponse
	vote     *model.VoteResponse
	rework   *model.ReworkResponse
	err      error
}

// holdVote starts the undo window for a ballot.
func (m *Model) holdVote(label string, req model.VoteRequest) tea.Cmd {
	return m.holdPending(&pending{label: label, votes: []model.VoteRequest{req}, form: req.ConflictID})
}

// holdPending starts the undo window for p, writing whatever was waiting
// before at once.
func (m *Model) holdPending(p *pending) tea.Cmd {
	flush := m.flush()
	m.pendingID++
	p.id, p.left = m.pendingID, m.undoWindow()
	m.pending = p
	return tea.Batch(flush, m.tickPending(), m.checkPending())
}

func (m *Model) tickPending() tea.Cmd {
	id, step := m.pending.id, min(time.Second, m.pending.left)
	return m.after(step, pendingTickMsg{id: id, step: step})
}

func (m *Model) undoWindow() time.Duration {
	if m.opt.UndoWindow > 0 {
		return m.opt.UndoWindow
	}
	return undoWindow
}

// pendingTick writes the decision once its window closed.
func (m *Model) pendingTick(msg pendingTickMsg) tea.Cmd {
	p := m.pending
	if p == nil || p.id != msg.id || p.writing {
		return nil
	}
	p.left -= msg.step
	if p.left > 0 {
		return m.tickPending()
	}
	return m.flush()
}

// flush writes the pending decision now, if there is one.
func (m *Model) flush() tea.Cmd {
	p := m.pending
	if p == nil || p.writing {
		return nil
	}
	p.writing = true
	ctx, svc, as := m.ctx, m.svc, m.opt.As
	hw, _ := m.highway()
	return func() tea.Msg {
		var out []written
		for _, req := range p.reqs {
			resp, err := svc.Merge(ctx, as, req)
			out = append(out, written{conflict: req.ConflictID, merge: &resp, err: err})
		}
		for _, req := range p.votes {
			resp, err := svc.Vote(ctx, as, req)
			out = append(out, written{conflict: req.ConflictID, vote: &resp, err: err})
		}
		for _, req := range p.reworks {
			resp, err := hw.Rework(ctx, as, req) // planRework refuses reworks without a highway
			out = append(out, written{conflict: req.ConflictID, rework: &resp, err: err})
		}
		return pendingDoneMsg{id: p.id, label: p.label, form: p.form, results: out}
	}
}

// undo takes back the decision waiting to be written.
func (m *Model) undo() tea.Cmd {
	p := m.pending
	if p == nil || p.writing {
		return m.say("Nothing to undo: decisions are undone before they are written.")
	}
	m.pending = nil
	kept := ""
	if f := m.draft(p.form); f != nil {
		f.busy = false
		kept = m.keptNote(p.form, m.keys.Decide)
	}
	if f := m.ballot(p.form); f != nil {
		f.busy = false
		kept = m.keptNote(p.form, m.keys.Vote)
	}
	return m.say("Undone: " + p.label + " was not written." + kept)
}

// pendingDone takes the field's answers: forms get theirs, a quick
// decision says how it went in one line.
func (m *Model) pendingDone(msg pendingDoneMsg) tea.Cmd {
	if m.pending != nil && m.pending.id == msg.id {
		m.pending = nil
	}
	if m.quitting {
		return tea.Quit
	}
	var done, refused []string
	for _, w := range msg.results {
		switch {
		case w.err != nil:
			refused = append(refused, w.conflict+": "+plainError(w.err))
		case w.merge != nil:
			m.written[w.conflict] = w.merge.Conflict.Version
			done = append(done, w.conflict)
		case w.vote != nil:
			m.written[w.conflict] = w.vote.Conflict.Version
			done = append(done, w.conflict)
		case w.rework != nil:
			m.written[w.conflict] = w.rework.Conflict.Version
			done = append(done, w.conflict)
		}
	}
	cmds := []tea.Cmd{m.reloadQueue()}
	kept := ""
	for _, w := range msg.results {
		if m.inConflict() && m.conflict.id == w.conflict {
			cmds = append(cmds, loadDetail(m.ctx, m.svc, w.conflict))
		}
		// A form's decision: dropped once written, kept with the
		// refusal otherwise, to be opened again.
		if f := m.draft(w.conflict); f != nil && f.busy && w.merge != nil {
			if f.answer(w.err, "Not written: ") {
				m.held[w.conflict].decide = nil
			} else {
				kept = m.keptNote(w.conflict, m.keys.Decide)
			}
		}
		if f := m.ballot(w.conflict); f != nil && f.busy && w.vote != nil {
			if f.answer(w.err, "Not counted: ") {
				m.held[w.conflict].vote = nil
			} else {
				kept = m.keptNote(w.conflict, m.keys.Vote)
			}
		}
	}
	switch {
	case len(msg.results) == 1 && len(refused) == 0:
		cmds = append(cmds, m.say(saidOf(msg.results[0])))
	case len(msg.results) == 1:
		cmds = append(cmds, m.say("Not written: "+refused[0]+kept))
	default:
		s := fmt.Sprintf("Decided %d of %d.", len(done), len(msg.results))
		if len(refused) > 0 {
			s += " Refused: " + strings.Join(refused, "; ")
		}
		m.batchReport = s
		cmds = append(cmds, m.say(s))
	}
	return tea.Batch(cmds...)
}

// keptNote says that what was typed in a form on conflict id is kept,
// and how to reach it again.
func (m *Model) keptNote(id string, form key.Binding) string {
	return " What you typed is kept: open " + safetext.Line(id) + " and press " + keyOf(form) + "."
}

// isPending reports whether conflict id has a decision waiting.
func (m *Model) isPending(id string) bool {
	p := m.pending
	if p == nil {
		return false
	}
	for _, r := range p.reqs {
		if r.ConflictID == id {
			return true
		}
	}
	for _, r := range p.votes {
		if r.ConflictID == id {
			return true
		}
	}
	for _, r := range p.reworks {
		if r.ConflictID == id {
			return true
		}
	}
	return false
}

// pendingLine is the undo window's line at the bottom ("" when nothing
// waits).
func (m *Model) pendingLine() string {
	p := m.pending
	if p == nil {
		return ""
	}
	st := m.styles
	if p.writing {
		return st.Muted.Render("Writing " + safetext.Line(p.label) + "…")
	}
	left := max(0, int(p.left.Round(time.Second)/time.Second))
	return st.Header.Render(safetext.Line(p.label)) + st.Muted.Render(fmt.Sprintf(" — written in %ds · ", left)) +
		st.Key.Render(keyOf(m.keys.Undo)) + st.Muted.Render(" undo")
}

// quit ends the screen, writing first any decision still in its undo
// window: quitting never loses one.
func (m *Model) quit() tea.Cmd {
	if m.pending == nil {
		return tea.Quit
	}
	if m.pending.writing {
		m.quitting = true // pendingDone quits
		return nil
	}
	return tea.Sequence(m.flush(), tea.Quit)
}
