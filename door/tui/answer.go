package tui

import (
	"context"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// Answering an escalation from the screen: approving its proposal is the
// MERGE model.Approval makes of it (what review's Approve writes), held
// in the undo window like any decision; sending it back is a REWORK, held
// the same way.

// approval is the MERGE that approves the proposal of d as me, with
// rationale why.
func approval(me model.Agent, d model.ConflictDetail, why string) (model.MergeRequest, *model.Error) {
	c := d.Conflict
	if !proposed(c) {
		return model.MergeRequest{}, model.Errorf(model.OpMerge, model.CodeInvalidRequest, "decide it, or send it back",
			"%s carries no proposal to approve", c.ID)
	}
	return model.Approval(me, d, model.ApproveRequest{ConflictID: c.ID, Rationale: why, ExpectedVersion: c.Version})
}

// planRework says whether sending conflict id back would be taken:
// reworks says whether the field takes them at all.
func planRework(ctx context.Context, svc deskReader, me model.Agent, id string, reworks bool) plan {
	p := plan{req: model.MergeRequest{ConflictID: id}}
	if !reworks {
		p.refusal = "this field takes no rework from here (a decisions file, or another program's file): decide it instead"
		return p
	}
	d, err := svc.Detail(ctx, id)
	if err != nil {
		p.refusal = plainError(err)
		return p
	}
	p.detail = d
	c := d.Conflict
	switch {
	case c.Status == model.StatusResolving && c.Rework != nil:
		p.refusal = id + " was sent back already by " + c.Rework.By + "; it waits for its authors' revision"
	default:
		if perr := model.Permit(me, d, model.Rework); perr != nil {
			p.refusal = plainError(perr)
		}
	}
	return p
}

// reworkLine says what sending one conflict back does.
func (m *Model) reworkLine(pl plan) string {
	st := m.styles
	d := pl.detail
	authors := []string{d.A.Unit.Source.AgentID}
	if b := d.B.Unit.Source.AgentID; b != authors[0] {
		authors = append(authors, b)
	}
	then := "no deadline"
	if r := d.Policy.EscalationTimeout; r > 0 {
		then = "deadline in " + model.ShortDuration(r)
		if f := d.Policy.EscalationFallback; f != "" && f != model.FallbackRework {
			then += ", then " + string(f)
		}
	}
	return st.Header.Render("Send back") + " " + safetext.Line(d.Conflict.ID) + " to " +
		safetext.Line(strings.Join(authors, " and ")) + " for rework" + st.Muted.Render(" · ") +
		"it becomes resolving until one of them revises their unit" + st.Muted.Render(" · "+then+" · your rationale is their directive")
}
