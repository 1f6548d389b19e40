package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/review"

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
	// decision); undone: taken back meanwhile.
	held      []string
	holding   bool
	flushHeld bool
	// undone is set on the screen's goroutine and read by the command
	// that holds it (holdPending), which takes it back if it was undone
	// while being stored.
	undone atomic.Bool
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
		return tea.Batch(flush, m.tickPending())
	}
	reqs := p.requests()
	p.held, p.holding = review.NewHeldIDs(reqs.Len()), true
	ctx, as, ids, window, id := m.ctx, m.opt.As, p.held, p.left, p.id
	return tea.Batch(flush, func() tea.Msg {
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
	switch {
	case msg.err != nil:
		p.held = nil // nothing is held: there is nothing to write or take back
		if p.undone.Load() {
			delete(m.unanswered, p.id)
			return tea.Batch(m.say("Undone: "+p.label+" was not written."), m.settled())
		}
		return m.notHeld(p, msg.err)
	case p.undone.Load():
		return m.unhold(p)
	case p.flushHeld || m.pending != p:
		p.writing = true
		return m.write(p)
	}
	return m.tickPending()
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
	for _, c := range conflictsOf(p) {
		out = append(out, written{conflict: c, err: err})
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

// write writes p: through the field that holds it, else request by
// request.
func (m *Model) write(p *pending) tea.Cmd {
	ctx, svc, as := m.ctx, m.svc, m.opt.As
	hw, _ := m.highway()
	if h, ok := m.holder(); ok && p.held != nil {
		conflicts := conflictsOf(p)
		return func() tea.Msg {
			return pendingDoneMsg{id: p.id, label: p.label, form: p.form,
				results: answersOf(p, conflicts, h.WriteHeld(ctx, as, p.held))}
		}
	}
	return func() tea.Msg {
		return pendingDoneMsg{id: p.id, label: p.label, form: p.form, results: writeEach(ctx, svc, hw, as, p)}
	}
}

// writeEach writes p's requests one by one, as the screen holds them.
func writeEach(ctx context.Context, svc review.Desk, hw review.Highway, as string, p *pending) []written {
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
	return out
}

// conflictsOf lists the conflicts of p's requests, in their order.
func conflictsOf(p *pending) []string {
	var out []string
	for _, r := range p.reqs {
		out = append(out, r.ConflictID)
	}
	for _, r := range p.votes {
		out = append(out, r.ConflictID)
	}
	for _, r := range p.reworks {
		out = append(out, r.ConflictID)
	}
	return out
}

// answersOf turns the field's answers to p's held requests into the
// screen's, each with the response its kind's form reads.
func answersOf(p *pending, conflicts []string, res []review.HeldResult) []written {
	out := make([]written, len(res))
	for i, r := range res {
		w := written{conflict: conflicts[i], merge: r.Merge, vote: r.Vote, rework: r.Rework, err: r.Err, kept: r.Kept}
		switch {
		case i < len(p.reqs) && w.merge == nil:
			w.merge = &model.MergeResponse{}
		case i >= len(p.reqs) && i < len(p.reqs)+len(p.votes) && w.vote == nil:
			w.vote = &model.VoteResponse{}
		case i >= len(p.reqs)+len(p.votes) && w.rework == nil:
			w.rework = &model.ReworkResponse{}
		}
		out[i] = w
	}
	return out
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
	}
	if f := m.ballot(p.form); f != nil {
		f.busy = false
	}
	p.undone.Store(true)
	switch {
	case p.holding:
		return nil // taken back once the field holds it (heldArrived)
	case p.held != nil:
		return m.unhold(p)
	}
	delete(m.unanswered, p.id)
	return m.say("Undone: " + p.label + " was not written.")
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
	delete(m.unanswered, msg.id)
	var say tea.Cmd
	switch {
	case msg.err != nil:
		say = m.say("Not undone: " + plainError(msg.err) + ". The field still holds " + msg.label + ", and writes it.")
	case msg.took < msg.want:
		say = tea.Batch(m.reloadQueue(), m.say("Too late to undo: the field wrote "+msg.label+" before it was taken back."))
	default:
		say = m.say("Undone: " + msg.label + " was not written.")
	}
	return tea.Batch(say, m.settled())
}

// pendingDone takes the field's answers: forms get theirs, a quick
// decision says how it went in one line.
func (m *Model) pendingDone(msg pendingDoneMsg) tea.Cmd {
	delete(m.unanswered, msg.id)
	if m.pending != nil && m.pending.id == msg.id {
		m.pending = nil
	}
	if quit := m.settled(); quit != nil {
		return quit
	}
	var done, refused []string
	for _, w := range msg.results {
		switch {
		case w.err != nil && w.kept:
			refused = append(refused, w.conflict+": "+plainError(w.err)+"; the field still holds it, and writes it once it can")
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
	for _, w := range msg.results {
		if f := m.draft(w.conflict); f != nil && f.busy && w.merge != nil {
			cmds = append(cmds, m.answered(w.conflict, f.answer(*w.merge, w.err, "Not written: ")))
		}
		if f := m.ballot(w.conflict); f != nil && f.busy && w.vote != nil {
			cmds = append(cmds, m.answered(w.conflict, f.answer(*w.vote, w.err, "Not counted: ")))
		}
	}
	switch {
	case msg.form != "" && (m.draft(msg.form) != nil || m.ballot(msg.form) != nil):
		// The form shows the answer.
	case len(msg.results) == 1 && len(refused) == 0:
		if file, offline := m.svc.Offline(); offline {
			cmds = append(cmds, m.say("Queued in "+safetext.Line(file)+" (nothing is notified until `arbiter apply`): "+msg.label+"."))
		} else {
			cmds = append(cmds, m.say("Written: "+msg.label+"."))
		}
	case len(msg.results) == 1:
		cmds = append(cmds, m.say("Not written: "+refused[0]))
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

// isPending reports whether conflict id has a decision waiting.
func (m *Model) isPending(id string) bool {
	p := m.pending
	if p == nil {
		return false
	}
	for _, c := range conflictsOf(p) {
		if c == id {
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
