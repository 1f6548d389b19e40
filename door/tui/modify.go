package tui

import (
	"strings"

	"arbiter/model"

	tea "charm.land/bubbletea/v2"
)

// Modifying a proposal is deciding the conflict in the decision form,
// started from what the escalating agent proposed: its synthesis, ready
// to edit (in the form or $EDITOR), or the other unit. The rationale
// written says what was changed (model.ApprovalNote), as arbiter approve
// --winner or --synthesis records it.

// startModify opens the decision form on the conflict on screen, filled
// from its proposal.
func (m *Model) startModify() tea.Cmd {
	v := &m.conflict
	if why := m.notYours(); why != "" {
		return m.say(why)
	}
	if !proposed(v.detail.Conflict) {
		return m.say(v.id + " carries no proposal to modify; press " + keyOf(m.keys.Decide) + " to decide it.")
	}
	f := newDecideForm(v.openConflict, m.me, m.styles.Theme.Dark, m.keys)
	_, f.offline = m.svc.Offline()
	f.startFrom(m.me, *v.detail.Conflict.Proposal)
	v.decide = f
	m.push(decideScreen{})
	f.layout(m.width, m.bodyHeight())
	return m.checkDraft(f)
}

// startFrom fills the form from proposal p: its synthesis to edit, or the
// other unit kept by the strategy that says truly why (HonestStrategy).
func (f *decideForm) startFrom(me model.Agent, p model.Proposal) {
	f.modifies = &p
	c := f.detail.Conflict
	want, winner := model.Synthesis, ""
	if p.WinnerID != nil {
		winner, _ = c.Other(*p.WinnerID)
		if s, err := model.HonestStrategy(me, f.detail, winner); err == nil {
			want = s
		}
	}
	for i, ch := range f.choices {
		if ch.Strategy == want && ch.Err == nil {
			f.sel = i
		}
	}
	f.pickDefaultWinner()
	if winner != "" {
		f.winner = winner
	}
	if p.Synthesis != nil {
		f.synthesis.SetValue(*p.Synthesis)
	}
	f.focus = focusStrategy
	f.cycle(1) // to the winner, or the rationale
}

// noteModification adds to req's rationale what it changes of the
// proposal the form modifies, for a decision that keeps a unit or writes
// a synthesis.
func (f *decideForm) noteModification(req *model.MergeRequest) {
	p := f.modifies
	if p == nil || req.Resolution.Rationale == "" {
		return
	}
	winner, synthesis := "", ""
	switch {
	case req.Strategy == model.Synthesis && req.Resolution.Synthesis != nil:
		synthesis = *req.Resolution.Synthesis
		if p.Synthesis != nil && strings.TrimSpace(*p.Synthesis) == synthesis {
			synthesis = *p.Synthesis // the form trims what it sends
		}
	case req.Resolution.WinnerID != nil:
		winner = *req.Resolution.WinnerID
	default:
		return
	}
	req.Resolution.Rationale += "\n\n" + model.ApprovalNote(f.detail.Conflict, *p, winner, synthesis)
}
