package review

import (
	"context"
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Merge settles, escalates or puts to a vote a conflict (MERGE), as one
// transaction: the conflict, unit statuses, any synthesis unit and its
// relations, notifications and the event log change together or not at
// all. On a read-only field with a decisions file (WithDecisionsOut) the
// decision is checked against the field by the same rules and appended to
// the file instead; the response then says what the field would become.
func (s *Service) Merge(ctx context.Context, callerID string, req model.MergeRequest) (model.MergeResponse, error) {
	var resp model.MergeResponse
	if err := validateMerge(req); err != nil {
		return resp, err
	}
	if s.offline() {
		return s.mergeOffline(ctx, callerID, req)
	}
	err := s.write(ctx, model.OpMerge, func(tx store.Tx) (err error) {
		resp, err = s.merge(tx, callerID, req, "")
		return err
	})
	return resp, err
}

// CheckMerge applies every rule of MERGE to req as the field stands,
// writing nothing: nil when the field would take it now, else the refusal
// Merge would return. A screen runs it as a person fills in a decision.
func (s *Service) CheckMerge(ctx context.Context, callerID string, req model.MergeRequest) error {
	if err := validateMerge(req); err != nil {
		return err
	}
	return s.st.Read(ctx, func(tx store.Tx) error {
		_, _, err := s.checkMerge(tx, callerID, req)
		return err
	})
}

// merge checks a MERGE as checkMerge does and carries it out in tx.
// messageID, when not empty, is the id of the offline message the decision
// comes from; the MERGE event keeps it (see ApplyDecision).
func (s *Service) merge(tx store.Tx, callerID string, req model.MergeRequest, messageID string) (model.MergeResponse, error) {
	d, winner, err := s.checkMerge(tx, callerID, req)
	if err != nil {
		return model.MergeResponse{}, err
	}
	return s.apply(tx, d, req, winner, messageID)
}

// checkMerge applies every rule of MERGE to a validated request without
// writing anything, so that it can run in a read transaction too: the
// caller is registered, the conflict exists and is still at the version
// the caller saw, the policy permits the strategy to the caller, a winner
// is one of the conflict's units, and a deterministic rule does not tie
// and agrees with any winner named. It returns the state the decision is
// taken on and the winner ("" when there is none).
func (s *Service) checkMerge(tx store.Tx, callerID string, req model.MergeRequest) (decision, string, error) {
	const op = model.OpMerge
	d, err := s.prepare(tx, op, callerID, req.ConflictID, req.ExpectedVersion)
	if err != nil {
		return d, "", err
	}
	if err := model.Permit(d.caller, d.ConflictDetail, req.Strategy); err != nil {
		return d, "", err
	}
	c := d.Conflict
	var winner string
	if w := req.Resolution.WinnerID; w != nil && *w != "" {
		if _, ok := c.Other(*w); !ok {
			return d, "", model.Errorf(op, model.CodeInvalidRequest, "name "+c.UnitA+" or "+c.UnitB,
				"%q is not one of %s's units (%s, %s)", *w, c.ID, c.UnitA, c.UnitB)
		}
		winner = *w
	}
	winner, pick, refusal := model.MergeWinner(req.Strategy, winner, d.A.Contender(), d.B.Contender())
	if refusal != nil {
		refusal.SuggestedAction = "try synthesis, vote or human_escalation"
		if !pick.Tie {
			refusal.SuggestedAction = "name " + pick.WinnerID + " or choose another strategy"
		}
		return d, "", refusal
	}
	if err := standing(d, winner); err != nil {
		return d, "", err
	}
	if p := req.Proposal; p != nil && p.WinnerID != nil {
		if _, ok := c.Other(*p.WinnerID); !ok {
			return d, "", model.Errorf(op, model.CodeInvalidRequest, "propose "+c.UnitA+" or "+c.UnitB,
				"the proposal keeps %q, which is not one of %s's units (%s, %s)", *p.WinnerID, c.ID, c.UnitA, c.UnitB)
		}
	}
	if req.Strategy == model.Vote {
		if err := quorumReachable(tx, d); err != nil {
			return d, "", err
		}
	}
	if err := checkRoute(tx, d, req); err != nil {
		return d, "", err
	}
	return d, winner, nil
}

// quorumReachable refuses to open a vote that could never close: fewer
// eligible voters than the quorum would leave the conflict pending for
// good (only votes settle a pending vote).
func quorumReachable(tx store.Tx, d decision) error {
	vs, err := voters(tx, d.ConflictDetail)
	if err != nil {
		return err
	}
	if p := d.Policy; len(vs) < p.Quorum {
		return model.Errorf(model.OpMerge, model.CodeMergeFailed, "escalate it to a human operator instead, or register more voters",
			"a vote needs a quorum of %d, but only %d agents may vote on %s", p.Quorum, len(vs), d.Conflict.ID)
	}
	return nil
}

// decision is the state a decision is taken on.
type decision struct {
	model.ConflictDetail
	caller model.Agent
}

// prepare loads what a decision needs, checking the caller, that the
// conflict exists, and that it is still at the version the caller saw.
func (s *Service) prepare(tx store.Tx, op, callerID, conflictID string, expect int64) (decision, error) {
	var d decision
	var err error
	if d.caller, err = caller(tx, op, callerID); err != nil {
		return d, err
	}
	if d.ConflictDetail, err = detail(tx, op, conflictID); err != nil {
		return d, err
	}
	if c := d.Conflict; expect != 0 && c.Version != expect {
		return d, model.Errorf(op, model.CodeInvalidTransition, "re-read the conflict and decide again",
			"%s changed since you read it (you saw version %d; it is at %d and %s)", c.ID, expect, c.Version, describe(c))
	}
	return d, nil
}

func describe(c model.Conflict) string {
	switch {
	case c.Resolution != nil:
		return fmt.Sprintf("was resolved by %s with %s", c.Resolution.ResolvedBy, c.Resolution.Strategy)
	case c.Status == model.StatusEscalated && c.Escalation != nil:
		return "was escalated by " + c.Escalation.By
	case c.Status == model.StatusPendingVote:
		return "is put to a vote"
	case c.Status == model.StatusResolving && c.Rework != nil:
		return "was sent back for rework by " + c.Rework.By
	}
	return "is " + string(c.Status)
}

// validateMerge checks a MERGE request on its own (model.CheckMergeRequest)
// and the parts of its routing.
func validateMerge(req model.MergeRequest) error {
	if err := model.CheckMergeRequest(req); err != nil {
		return err
	}
	if req.Routing != nil {
		return checkRouting(model.OpMerge, *req.Routing)
	}
	return nil
}

// apply carries out a MERGE checkMerge allowed, for winner: what its
// strategy does (model.Effect, from the table of strategies).
func (s *Service) apply(tx store.Tx, d decision, req model.MergeRequest, winner, messageID string) (model.MergeResponse, error) {
	const op = model.OpMerge
	o := outcome{s: s, tx: tx, d: d, by: d.caller.ID, rationale: strings.TrimSpace(req.Resolution.Rationale), message: messageID}
	o.epoch, o.err = tx.EpochTick()
	o.now = s.now()
	if d.Conflict.Status == model.StatusPendingVote {
		o.override()
	}
	var routing model.Routing
	if req.Routing != nil {
		routing = *req.Routing
	}
	switch req.Strategy.Row().Effect {
	case model.ToPeople:
		o.escalate(o.rationale, routing, req.Proposal)
	case model.ToVote:
		o.openVote(routing)
	case model.NewUnit:
		o.synthesize(*req.Resolution.Synthesis)
	case model.KeepBoth:
		o.resolve(req.Strategy, "")
	default:
		o.resolve(req.Strategy, winner)
	}
	logDecision(&o, op, req)
	return o.response()
}

// standing refuses a winner that another decision already superseded or
// that its author retracted: it cannot prevail any more.
func standing(d decision, winner string) error {
	if winner == "" {
		return nil
	}
	u := d.A.Unit
	if winner == d.B.Unit.ID {
		u = d.B.Unit
	}
	if !u.Status.Stands() {
		return model.Errorf(model.OpMerge, model.CodeMergeFailed, "dismiss the conflict, or write a synthesis",
			"%s cannot prevail: it is already %s", u.ID, u.Status)
	}
	return nil
}

// checkRoute refuses an escalation's or a vote's routing that the field
// cannot follow (an owner who is not a registered person, a fallback
// without a deadline), before anything is written or sent offline.
func checkRoute(tx store.Tx, d decision, req model.MergeRequest) error {
	kind := routeEscalation
	switch req.Strategy.Row().Effect {
	case model.ToPeople:
	case model.ToVote:
		kind = routeVote
	default:
		return nil
	}
	var r model.Routing
	if req.Routing != nil {
		r = *req.Routing
	}
	_, _, err := routeFor(tx, model.OpMerge, d.ConflictDetail, kind, d.caller.ID, r, time.Time{})
	return err
}
