package review

import (
	"context"

	"arbiter/model"
	"arbiter/store"
)

// Approve carries out what the agent who escalated a conflict proposed,
// as callerID's own decision (approve), or the proposal as req modifies
// it: another unit to keep, or another synthesis (modify). It goes
// through MERGE (Merge), so it is checked, written, logged and told as
// any decision is, and it goes to the decisions file on a field open
// with one. model.Approval says what MERGE it makes: a kept unit is
// decided by the honest strategy (model.HonestStrategy) — the rule that
// picks it, else authority — and a synthesis by synthesis; the rationale
// says what was approved or changed. The MERGE names the version the
// proposal was read at (or req's), so a proposal that changed meanwhile
// is refused, not approved unseen.
func (s *Service) Approve(ctx context.Context, callerID string, req model.ApproveRequest) (model.MergeResponse, error) {
	var mreq model.MergeRequest
	err := s.st.Read(ctx, func(tx store.Tx) error {
		d, err := s.prepare(tx, model.OpMerge, callerID, req.ConflictID, req.ExpectedVersion)
		if err != nil {
			return err
		}
		m, pe := model.Approval(d.caller, d.ConflictDetail, req)
		if pe != nil {
			return pe
		}
		mreq = m
		return nil
	})
	if err != nil {
		return model.MergeResponse{}, err
	}
	return s.Merge(ctx, callerID, mreq)
}
