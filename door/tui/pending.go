package tui

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/service/review"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A decision made on the screen waits a moment before it is written: the
// undo window. On a field that takes writes it is held in the field
// (review.Holder) before the window opens, so that nothing ends it
// silently: the screen writes it when the window closes, or at once when
// the person quits or decides again, or when the screen ends any other
// way (leave, held.go); undo takes it back and nothing reaches the field;
// a screen killed outright leaves it to the field's next sweep. On a
// field that takes no writes (a decisions file, another program's file)
// the screen holds it itself.

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
	// held are the ids the field holds it under, one per request
	// (requests(): merges, votes, reworks); nil when the screen holds it
	// itself. holding: the field is storing them, and the window opens
	// once it has; flushHeld: write it as soon as it has (a quit, a new
	// decision).
	held      []string
	holding   bool
	flushHeld bool
	// dropped are held ids taken out while the field was storing them
	// (the field would refuse them): taken back once it has.
	dropped []string
	// undone is set on the screen's goroutine and read by the command
	// that holds it (holdPending), which takes it back if it was undone
	// while being stored.
	undone atomic.Bool
	// kept says, once it is undone, that what its form held is kept.
	kept string
}

func (p *pending) requests() model.HeldRequests {
	return model.HeldRequests{Merges: p.reqs, Votes: p.votes, Reworks: p.reworks}
}

type (
	// pendingTickMsg counts the window down by step.
	pendingTickMsg struct {
		id   int
		step time.Duration
	}
	// heldMsg is the field's answer to holding pending decision id.
	heldMsg struct {
		id  int
		err error
	}
	// pendingDoneMsg is what writing a pending decision gave.
	pendingDoneMsg struct {
		id      int
		label   string
		form    string // the form that made it, which shows the answer
		results []written
	}
	// undoneMsg is the field's answer to taking held decision id back:
	// took of want.
	undoneMsg struct {
		id         int
		label      string
		took, want int
		err        error
	}
)

// written is one conflict's answer to a pending decision.
type written struct {
	conflict string
	merge    *model.MergeResponse
	vote     *model.VoteResponse
	rework   *model.ReworkResponse
	err      error
	// kept: the field could not take it now; it stays held there, and a
	// sweep writes it once the field does.
	kept bool
}

// holder is the field, when it holds decisions in their window.
func (m *Model) holder() (review.Holder, bool) {
	h, ok := m.svc.(review.Holder)
	return h, ok && h.Holds()
}

// holdVote starts the undo window for a ballot.
func (m *Model) holdVote(label string, req model.VoteRequest) tea.Cmd {
	return m.holdPending(&pending{label: label, votes: []model.VoteRequest{req}, form: req.ConflictID})
}

// holdPending starts the undo window for p, writing whatever was waiting
// before at once. On a field that holds decisions, the window opens once
// the field holds p.
func (m *Model) holdPending(p *pending) tea.Cmd {
	flush := m.flush()
	m.pendingID++
	p.id, p.left = m.pendingID, m.undoWindow()
	m.pending = p
	m.unanswered[p.id] = p
	h, ok := m.holder()
	if !ok {
		return tea.Batch(flush, m.tickPending(), m.checkPending())
	}
	reqs := p.requests()
	p.held, p.holding = review.NewHeldIDs(reqs.Len()), true
	ctx, as, ids, window, id := m.ctx, m.opt.As, p.held, p.left, p.id
	return tea.Batch(flush, m.checkPending(), func() tea.Msg {
		err := h.Hold(ctx, as, ids, reqs, window)
		if err == nil && p.undone.Load() {
			// Undone while it was being stored, perhaps by a screen
			// that has ended since: take it back here.
			h.Unhold(context.WithoutCancel(ctx), as, ids)
		}
		return heldMsg{id: id, err: err}
	})
}

// heldArrived opens the window of the decision the field now holds — or
// writes it, if the person quit or decided again meanwhile, or takes it
// back, if they undid it.
func (m *Model) heldArrived(msg heldMsg) tea.Cmd {
	p := m.unanswered[msg.id]
	if p == nil || !p.holding {
		return nil
	}
	p.holding = false
	var takeBack tea.Cmd
	if msg.err == nil {
		takeBack = m.takeBack(p.dropped)
	}
	p.dropped = nil
	switch {
	case p.empty():
		// All of it was taken out while being stored, and said.
		delete(m.unanswered, p.id)
		return tea.Batch(takeBack, m.settled())
	case msg.err != nil:
		p.held = nil // nothing is held: there is nothing to write or take back
		if p.undone.Load() {
			delete(m.unanswered, p.id)
			return tea.Batch(m.say("Undone: "+p.label+" was not written."), m.settled())
		}
		return m.notHeld(p, msg.err)
	case p.undone.Load():
		return tea.Batch(takeBack, m.unhold(p))
	case p.flushHeld || m.pending != p:
		p.writing = true
		return tea.Batch(takeBack, m.write(p))
	}
	return tea.Batch(takeBack, m.tickPending())
}

// settled ends the screen once nothing it held is left open, if the
// person asked to quit.
func (m *Model) settled() tea.Cmd {
	if m.quitting && len(m.unanswered) == 0 {
		return tea.Quit
	}
	return nil
}

// notHeld answers every request of p with the field's refusal to hold it:
// nothing was written.
func (m *Model) notHeld(p *pending, err error) tea.Cmd {
	var out []written
	for _, a := range asked(p) {
		out = append(out, written{conflict: a.ConflictID, err: err})
	}
	return func() tea.Msg { return pendingDoneMsg{id: p.id, label: p.label, form: p.form, results: out} }
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

// flush writes the pending decision now, if there is one; one the field
// is still storing is written as soon as it has.
func (m *Model) flush() tea.Cmd {
	p := m.pending
	switch {
	case p == nil || p.writing:
		return nil
	case p.holding:
		p.flushHeld = true
		return nil
	}
	p.writing = true
	return m.write(p)
}

// undo takes back the decision waiting to be written.
func (m *Model) undo() tea.Cmd {
	p := m.pending
	if p == nil || p.writing {
		return m.say("Nothing to undo: decisions are undone before they are written.")
	}
	m.pending = nil
	if f := m.draft(p.form); f != nil {
		f.busy = false
		p.kept = m.keptNote(p.form, m.keys.Decide)
	}
	if f := m.ballot(p.form); f != nil {
		f.busy = false
		p.kept = m.keptNote(p.form, m.keys.Vote)
	}
	p.undone.Store(true)
	switch {
	case p.holding:
		return nil // taken back once the field holds it (heldArrived)
	case p.held != nil:
		return m.unhold(p)
	}
	delete(m.unanswered, p.id)
	return m.say("Undone: " + p.label + " was not written." + p.kept)
}

// unhold takes p back out of the field.
func (m *Model) unhold(p *pending) tea.Cmd {
	h, _ := m.holder()
	ctx, as, ids, label, id := m.ctx, m.opt.As, p.held, p.label, p.id
	return func() tea.Msg {
		took, err := h.Unhold(ctx, as, ids)
		return undoneMsg{id: id, label: label, took: took, want: len(ids), err: err}
	}
}

// undoneArrived says whether the field took the decision back.
func (m *Model) undoneArrived(msg undoneMsg) tea.Cmd {
	kept := ""
	if p := m.unanswered[msg.id]; p != nil {
		kept = p.kept
	}
	delete(m.unanswered, msg.id)
	var say tea.Cmd
	switch {
	case msg.err != nil:
		say = m.say("Not undone: " + plainError(msg.err) + ". The field still holds " + msg.label + ", and writes it.")
	case msg.took < msg.want:
		say = tea.Batch(m.reloadQueue(), m.say("Too late to undo: the field wrote "+msg.label+" before it was taken back."))
	default:
		say = m.say("Undone: " + msg.label + " was not written." + kept)
	}
	return tea.Batch(say, m.settled())
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
	return slices.ContainsFunc(asked(p), func(a model.HeldDecision) bool { return a.ConflictID == id })
}

// pendingLine is the undo window's line at the bottom ("" when nothing
// waits).
func (m *Model) pendingLine() string {
	p := m.pending
	if p == nil {
		return ""
	}
	st := m.styles
	switch {
	case p.writing:
		return st.Muted.Render("Writing " + safetext.Line(p.label) + "…")
	case p.holding:
		return st.Muted.Render("Holding " + safetext.Line(p.label) + "…")
	}
	left := max(0, int(p.left.Round(time.Second)/time.Second))
	return st.Header.Render(safetext.Line(p.label)) + st.Muted.Render(fmt.Sprintf(" — written in %ds · ", left)) +
		st.Key.Render(keyOf(m.keys.Undo)) + st.Muted.Render(" undo")
}

// quit ends the screen, writing first any decision still in its undo
// window: quitting never loses one. The screen ends once the field has
// answered for every one (settled).
func (m *Model) quit() tea.Cmd {
	if len(m.unanswered) == 0 {
		return tea.Quit
	}
	m.quitting = true
	return m.flush()
}
