package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"arbiter/model"
)

func (s *Server) record(ctx context.Context, in recordInput) (model.RecordResult, string, error) {
	res, err := s.svc.Record(ctx, s.agent.ID, in.request())
	if err != nil {
		return res, "", err
	}
	if res.Conflicts == nil {
		res.Conflicts = []model.Conflict{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "recorded unit %s at epoch %d", q(res.UnitID), res.Epoch)
	for _, c := range res.Conflicts {
		fmt.Fprintf(&b, "; opened conflict %s (%s, version %d) between %s and %s", q(c.ID), c.Type, c.Version, q(c.UnitA), q(c.UnitB))
	}
	return res, b.String(), nil
}

func (s *Server) merge(ctx context.Context, in mergeInput) (model.MergeResponse, string, error) {
	req := model.MergeRequest{ConflictID: in.ConflictID, Strategy: in.Strategy, ExpectedVersion: in.ExpectedVersion,
		Resolution: model.MergeResolution{WinnerID: in.Resolution.WinnerID, Synthesis: in.Resolution.Synthesis, Rationale: in.Resolution.Rationale}}
	if w := req.Resolution.WinnerID; w != nil {
		id, err := s.side(ctx, in.ConflictID, *w)
		if err != nil {
			return model.MergeResponse{}, "", err
		}
		req.Resolution.WinnerID = &id
	}
	if r := in.Routing; r != nil {
		req.Routing = &model.Routing{To: r.To, Deadline: r.Deadline, Fallback: model.Fallback(r.Fallback)}
	}
	if p := in.Proposal; p != nil {
		req.Proposal = &model.Proposed{WinnerID: p.WinnerID, Synthesis: p.Synthesis}
		if w := p.WinnerID; w != nil {
			id, err := s.side(ctx, in.ConflictID, *w)
			if err != nil {
				return model.MergeResponse{}, "", err
			}
			req.Proposal.WinnerID = &id
		}
	}
	resp, err := s.svc.Merge(ctx, s.agent.ID, req)
	if err != nil {
		return resp, "", err
	}
	c := resp.Conflict
	var b strings.Builder
	if o := resp.Offline; o != nil {
		fmt.Fprintf(&b, "recorded in the decisions file for later `arbiter apply` (message %s, epoch %d): once applied, %s becomes %s unless it changed since version %d",
			q(o.MessageID), o.Epoch, q(c.ID), resp.Status, c.Version)
	} else {
		fmt.Fprintf(&b, "%s is %s (version %d)", q(c.ID), resp.Status, c.Version)
	}
	if r := c.Resolution; r != nil && r.WinnerID != nil {
		fmt.Fprintf(&b, "; winner %s", q(*r.WinnerID))
	}
	se := resp.SideEffects
	fmt.Fprintf(&b, "; superseded %s", qs(se.SupersededUnits, 10))
	if se.NewUnitID != nil {
		fmt.Fprintf(&b, "; new unit %s", q(*se.NewUnitID))
	}
	fmt.Fprintf(&b, "; notified %s", qs(se.NotifiedAgents, 10))
	return resp, b.String(), nil
}

// side resolves a winner given as A or B to the conflict's unit id; any
// other value is taken as a unit id, for the rules to check.
func (s *Server) side(ctx context.Context, conflictID, winner string) (string, error) {
	side := strings.ToUpper(strings.TrimSpace(winner))
	if side != "A" && side != "B" {
		return winner, nil
	}
	d, err := s.svc.Detail(ctx, conflictID)
	if pe, ok := model.AsError(err); ok {
		relabelled := *pe
		relabelled.Operation = model.OpMerge
		return "", &relabelled
	}
	if err != nil {
		return "", err
	}
	if side == "A" {
		return d.Conflict.UnitA, nil
	}
	return d.Conflict.UnitB, nil
}

func (s *Server) vote(ctx context.Context, in voteInput) (model.VoteResponse, string, error) {
	resp, err := s.svc.Vote(ctx, s.agent.ID, model.VoteRequest{ConflictID: in.ConflictID, Choice: in.Choice,
		Rationale: in.Rationale, ExpectedVersion: in.ExpectedVersion})
	if err != nil {
		return resp, "", err
	}
	c, t := resp.Conflict, resp.Tally
	var b strings.Builder
	verb := "cast"
	if resp.Changed {
		verb = "changed"
	}
	if resp.Offline != nil {
		verb += " in the decisions file, for later `arbiter apply`,"
	}
	fmt.Fprintf(&b, "%s your ballot on %s: A %d, B %d of quorum %d", verb, q(c.ID), t.ForA, t.ForB, t.Quorum)
	switch {
	case resp.Closed && resp.Status == model.StatusResolved:
		fmt.Fprintf(&b, "; the vote closed: %s is resolved", q(c.ID))
		if r := c.Resolution; r != nil && r.WinnerID != nil {
			fmt.Fprintf(&b, ", winner %s", q(*r.WinnerID))
		}
	case resp.Closed:
		fmt.Fprintf(&b, "; the vote tied at quorum: %s is %s", q(c.ID), resp.Status)
	default:
		b.WriteString("; the vote stays open")
	}
	return resp, b.String(), nil
}
