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
// refuse, and says so; when nothing is left, nothing waits.
func (m *Model) pendingChecked(msg pendingCheckedMsg) tea.Cmd {
	p := m.pending
	if p == nil || p.id != msg.id || p.writing || len(msg.refused) == 0 {
		return nil
	}
	gone := func(id string) bool { _, ok := msg.refused[id]; return ok }
	p.reqs = slices.DeleteFunc(p.reqs, func(r model.MergeRequest) bool { return gone(r.ConflictID) })
	p.votes = slices.DeleteFunc(p.votes, func(r model.VoteRequest) bool { return gone(r.ConflictID) })
	p.reworks = slices.DeleteFunc(p.reworks, func(r model.ReworkRequest) bool { return gone(r.ConflictID) })
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
	if len(p.reqs)+len(p.votes)+len(p.reworks) == 0 {
		m.pending = nil
		return tea.Batch(m.say("Not written, the field would refuse it now: "+strings.Join(why, "; ")+"."+kept), m.reloadQueue())
	}
	return m.say("Taken out of the decision waiting, the field would refuse it now: " + strings.Join(why, "; ") + ".")
}
