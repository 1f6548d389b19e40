package tui

import (
	"context"
	"slices"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
)

// A decision in its undo window is checked again against the field when
// the window opens and whenever the field changes meanwhile: one the
// field would now refuse (someone decided first, the conflict moved on)
// is taken out at once and said, rather than counted down and refused
// at the end.

// pendingCheckedMsg says which conflicts of pending decision id the
// field would refuse now, and why.
type pendingCheckedMsg struct {
	id      int
	refused map[string]string
}

// checkPending runs the dry run of every decision waiting, nil when none
// waits.
func (m *Model) checkPending() tea.Cmd {
	p := m.pending
	if p == nil || p.writing {
		return nil
	}
	ctx, svc, as, id := m.ctx, m.svc, m.opt.As, p.id
	reqs, votes, reworks := slices.Clone(p.reqs), slices.Clone(p.votes), slices.Clone(p.reworks)
	return func() tea.Msg {
		refused := map[string]string{}
		for _, r := range reqs {
			if err := svc.CheckMerge(ctx, as, r); err != nil {
				refused[r.ConflictID] = plainError(err)
			}
		}
		for _, v := range votes {
			if why := movedOn(ctx, svc, v.ConflictID, v.ExpectedVersion); why != "" {
				refused[v.ConflictID] = why
			}
		}
		for _, r := range reworks {
			if why := movedOn(ctx, svc, r.ConflictID, r.ExpectedVersion); why != "" {
				refused[r.ConflictID] = why
			}
		}
		return pendingCheckedMsg{id: id, refused: refused}
	}
}

// movedOn says how conflict id moved on from version, "" when it did not
// (or when it cannot be read now: the write will say).
func movedOn(ctx context.Context, svc review.Desk, id string, version int64) string {
	d, err := svc.Detail(ctx, id)
	if err != nil || version == 0 || d.Conflict.Version == version {
		return ""
	}
	return id + " changed since you decided: it " + describeConflict(d.Conflict)
}

// pendingChecked takes out of the waiting decision what the field would
// refuse, and says so; when nothing is left, nothing waits. What the field
// holds of it is taken back, so that no sweep writes what the person was
// told is not written.
func (m *Model) pendingChecked(msg pendingCheckedMsg) tea.Cmd {
	p := m.pending
	if p == nil || p.id != msg.id || p.writing || len(msg.refused) == 0 {
		return nil
	}
	dropped := p.takeOut(func(id string) bool { _, ok := msg.refused[id]; return ok })
	var why []string
	kept := ""
	for id, reason := range msg.refused {
		why = append(why, safetext.Line(id)+": "+reason)
		if f := m.draft(id); f != nil && f.busy {
			f.busy, f.refusal = false, "Not written: "+reason
			kept = m.keptNote(id, m.keys.Decide)
		}
		if f := m.ballot(id); f != nil && f.busy {
			f.busy, f.refusal = false, "Not counted: "+reason
			kept = m.keptNote(id, m.keys.Vote)
		}
	}
	slices.Sort(why)
	var takeBack tea.Cmd
	if p.holding {
		p.dropped = append(p.dropped, dropped...) // taken back once stored
	} else {
		takeBack = m.takeBack(dropped)
	}
	if p.empty() {
		m.pending = nil
		if !p.holding {
			delete(m.unanswered, p.id)
		}
		// Said until a key is pressed: a decision the screen counted down
		// is not written, which a person who looked away must not miss.
		m.tell("Not written, the field would refuse it now: " + strings.Join(why, "; ") + "." + kept)
		return tea.Batch(takeBack, m.reloadQueue(), m.settled())
	}
	// Said until a key is pressed: the countdown goes on for the rest.
	m.tell("Taken out of the decision waiting, the field would refuse it now: " + strings.Join(why, "; ") + ".")
	return takeBack
}

// takeOut removes from p the requests on the conflicts gone names, and
// returns the ids the field holds them under; p.held keeps one id for
// each request left, in requests()' order.
func (p *pending) takeOut(gone func(conflict string) bool) []string {
	var keep, dropped []string
	for i, a := range asked(p) {
		switch {
		case i >= len(p.held):
		case gone(a.ConflictID):
			dropped = append(dropped, p.held[i])
		default:
			keep = append(keep, p.held[i])
		}
	}
	if p.held != nil {
		p.held = keep
	}
	p.reqs = slices.DeleteFunc(p.reqs, func(r model.MergeRequest) bool { return gone(r.ConflictID) })
	p.votes = slices.DeleteFunc(p.votes, func(r model.VoteRequest) bool { return gone(r.ConflictID) })
	p.reworks = slices.DeleteFunc(p.reworks, func(r model.ReworkRequest) bool { return gone(r.ConflictID) })
	return dropped
}

// empty reports whether nothing is left of p to write.
func (p *pending) empty() bool { return len(p.reqs)+len(p.votes)+len(p.reworks) == 0 }

// droppedMsg is the field's answer to taking back ids taken out of a
// waiting decision.
type droppedMsg struct {
	ids []string
	err error
}

// takeBack takes ids back from the field, nil when there are none.
func (m *Model) takeBack(ids []string) tea.Cmd {
	h, ok := m.holder()
	if !ok || len(ids) == 0 {
		return nil
	}
	ctx, as := context.WithoutCancel(m.ctx), m.opt.As
	return func() tea.Msg {
		_, err := h.Unhold(ctx, as, ids)
		return droppedMsg{ids: ids, err: err}
	}
}

// droppedArrived says when the field could not take back what was taken
// out: it still holds it, and a sweep will try to write it.
func (m *Model) droppedArrived(msg droppedMsg) tea.Cmd {
	if msg.err == nil {
		return nil
	}
	return m.say("Could not take it back from the field (" + plainError(msg.err) + "): its sweep will try to write it, and the field will refuse it then.")
}
