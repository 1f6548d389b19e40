package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"arbiter/model"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
)

// Writing a pending decision once its window closes, and the field's
// answers: to the forms that made it, or in one line.

// write writes p: through the field that holds it, else request by
// request.
func (m *Model) write(p *pending) tea.Cmd {
	ctx, svc, as := m.ctx, m.svc, m.opt.As
	hw, _ := m.highway()
	if h, ok := m.holder(); ok && p.held != nil {
		ids, what := slices.Clone(p.held), asked(p)
		return func() tea.Msg {
			results := answersOf(what, h.WriteHeld(ctx, as, ids))
			dropWritten(ctx, svc, as, results)
			return pendingDoneMsg{id: p.id, label: p.label, form: p.form, results: results}
		}
	}
	return func() tea.Msg {
		results := writeEach(ctx, svc, hw, as, p)
		dropWritten(ctx, svc, as, results)
		return pendingDoneMsg{id: p.id, label: p.label, form: p.form, results: results}
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

// answersOf turns the field's answers to p's held requests into the
// screen's, each with the response its kind's form reads. asked is what
// was asked, one for each held id: a result the field could not read its
// request for (it was taken back) is still told on its conflict.
func answersOf(asked []model.HeldDecision, res []review.HeldResult) []written {
	out := make([]written, len(res))
	for i, r := range res {
		if r.ConflictID == "" && i < len(asked) {
			r.ConflictID, r.Kind = asked[i].ConflictID, asked[i].Kind
		}
		w := written{conflict: r.ConflictID, merge: r.Merge, vote: r.Vote, rework: r.Rework, err: r.Err, kept: r.Kept}
		switch {
		case r.Kind == model.HeldMerge && w.merge == nil:
			w.merge = &model.MergeResponse{}
		case r.Kind == model.HeldVote && w.vote == nil:
			w.vote = &model.VoteResponse{}
		case r.Kind == model.HeldRework && w.rework == nil:
			w.rework = &model.ReworkResponse{}
		}
		out[i] = w
	}
	return out
}

// asked is what p asks, one entry for each request in requests()' order:
// its conflict and kind.
func asked(p *pending) []model.HeldDecision {
	var out []model.HeldDecision
	p.requests().Each(func(kind model.HeldKind, conflict string, _ any) {
		out = append(out, model.HeldDecision{ConflictID: conflict, Kind: kind})
	})
	return out
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
	m.draftsWritten(msg.results)
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
	// What was not written is said until a key is pressed: the person
	// was shown it counted down, and may have looked away.
	switch {
	case len(msg.results) == 1 && len(refused) == 0:
		cmds = append(cmds, m.say(saidOf(msg.results[0])))
	case len(msg.results) == 1:
		m.tell("Not written: " + refused[0] + kept)
	case len(refused) == 0:
		m.batchReport = fmt.Sprintf("Decided %d of %d.", len(done), len(msg.results))
		cmds = append(cmds, m.say(m.batchReport))
	default:
		m.batchReport = fmt.Sprintf("Decided %d of %d. Refused: %s", len(done), len(msg.results), strings.Join(refused, "; "))
		m.tell(m.batchReport)
	}
	return tea.Batch(cmds...)
}
