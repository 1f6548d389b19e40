package review

import (
	"context"
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Rework sends a conflict back to the authors of its units (arbiter's
// REWORK; WACP's agent rework), as one transaction: the conflict becomes
// resolving, with the caller's rationale as the directive both authors
// are notified of (requires_action), routed on their behalf to whoever
// sent it back, under its own deadline and fallback (the request's, else
// the policy's; never rework again). It takes what deciding the conflict
// takes (model.Permit with model.Rework): on an escalated conflict a
// human operator or, where the policy lets owners decide, its owner.
//
// The conflict is then settled by the authors: when one of them records a
// unit that supersedes their unit of it, RECORD resolves it with strategy
// rework (see Record); if the revision still contradicts the other unit,
// the conflict that opens continues it (rework_of). Any decision a person
// may take on it still works meanwhile.
//
// A decisions file cannot carry a rework (UNSUPPORTED_OPERATION): its
// directive is for the authors now, and their revision is checked
// against it.
func (s *Service) Rework(ctx context.Context, callerID string, req model.ReworkRequest) (model.ReworkResponse, error) {
	var resp model.ReworkResponse
	if err := validateRework(req); err != nil {
		return resp, err
	}
	if s.offline() {
		return resp, model.Errorf(model.OpRework, model.CodeUnsupportedOperation, "send it back on the live field, or decide it with merge",
			"a rework cannot go to a decisions file: its directive is for the authors now, and their revision is checked against it")
	}
	err := s.write(ctx, model.OpRework, func(tx store.Tx) (err error) {
		resp, err = s.rework(tx, callerID, req)
		return err
	})
	return resp, err
}

// validateRework checks a REWORK request on its own.
func validateRework(req model.ReworkRequest) error {
	const op = model.OpRework
	switch {
	case strings.TrimSpace(req.Rationale) == "":
		return model.Errorf(op, model.CodeInvalidRequest, "say what the authors should revise in the rationale", "a rework needs a rationale: it is the authors' directive")
	case req.Fallback == model.FallbackRework:
		return model.Errorf(op, model.CodeInvalidRequest, "choose dismiss, a rule or escalate:ID", "a rework's fallback cannot be another rework")
	}
	return checkRouting(op, model.Routing{Deadline: req.Deadline, Fallback: req.Fallback})
}

// rework checks a validated REWORK and carries it out in tx.
func (s *Service) rework(tx store.Tx, callerID string, req model.ReworkRequest) (model.ReworkResponse, error) {
	const op = model.OpRework
	routing := model.Routing{Deadline: req.Deadline, Fallback: req.Fallback}
	d, err := s.prepare(tx, op, callerID, req.ConflictID, req.ExpectedVersion)
	if err != nil {
		return model.ReworkResponse{}, err
	}
	c := d.Conflict
	if c.Status == model.StatusResolving && c.Rework != nil {
		return model.ReworkResponse{}, model.Errorf(op, model.CodeInvalidTransition, "wait for the authors' revision, or decide it",
			"%s was already sent back for rework by %s at epoch %d", c.ID, c.Rework.By, c.Rework.Epoch)
	}
	if pe := model.Permit(d.caller, d.ConflictDetail, model.Rework); pe != nil {
		relabelled := *pe
		relabelled.Operation = op
		return model.ReworkResponse{}, &relabelled
	}
	o := outcome{s: s, tx: tx, op: op, d: d, by: d.caller.ID, rationale: strings.TrimSpace(req.Rationale)}
	if o.epoch, o.err = tx.EpochTick(); o.err != nil {
		return model.ReworkResponse{}, o.err
	}
	o.now = s.now()
	if c.Status == model.StatusPendingVote {
		o.override()
	}
	route, _, err := routeFor(tx, op, d.ConflictDetail, routeRework, o.by, routing, o.now)
	if err != nil {
		return model.ReworkResponse{}, err
	}
	o.sendBack(o.rationale, route)
	logDecision(&o, op, req)
	if o.err != nil {
		return model.ReworkResponse{}, o.err
	}
	return model.ReworkResponse{Status: o.conflict.Status, Conflict: o.conflict, NotifiedAgents: nonNil(o.notified)}, nil
}

// sendBack sends the conflict back to its authors along route, with
// directive, and tells each author which of their units to revise.
func (o *outcome) sendBack(directive string, route *model.Route) {
	c := o.d.Conflict
	c.Status = model.StatusResolving
	c.Rework = &model.Escalation{By: o.by, Reason: directive, Epoch: o.epoch, At: o.now}
	c.Route = route
	o.update(c)
	a, b := o.d.A.Unit, o.d.B.Unit
	mine := map[string][]string{}
	for _, u := range []model.Unit{a, b} {
		mine[u.Source.AgentID] = append(mine[u.Source.AgentID], u.ID)
	}
	for _, author := range uniqueAuthors(a, b) {
		units := mine[author]
		others := []string{}
		for _, u := range []string{a.ID, b.ID} {
			if !contains(units, u) {
				others = append(others, u)
			}
		}
		what := "record a unit that supersedes " + strings.Join(units, " or ")
		if len(others) > 0 {
			what += fmt.Sprintf("; if it still contradicts %s, the conflict continues as a new one", strings.Join(others, ", "))
		}
		o.tell([]string{author}, model.Notification{Event: model.EventConflictRework, RequiresAction: true,
			MemoryUnitID: model.Ptr(units[0]),
			Summary: fmt.Sprintf("%s sent back for rework by %s: %s — revise: %s%s", c.ID, o.by, oneLine(directive), what,
				routeSentence(route, o.now))})
	}
	// Everyone else concerned is told it went back, and what became of
	// the proposal it carried.
	summary := fmt.Sprintf("%s sent back to its authors (%s) for rework by %s%s: %s", c.ID,
		strings.Join(uniqueAuthors(a, b), ", "), o.by, routeSentence(route, o.now), oneLine(directive))
	if p := o.d.Conflict.Proposal; p != nil {
		summary += fmt.Sprintf(" %s's proposal (%s) was sent back.", p.By, p.Describe(c))
	}
	o.tellConcerned(model.EventConflictRework, model.Notification{Summary: summary}, uniqueAuthors(a, b))
}

func uniqueAuthors(a, b model.Unit) []string {
	if a.Source.AgentID == b.Source.AgentID {
		return []string{a.Source.AgentID}
	}
	return []string{a.Source.AgentID, b.Source.AgentID}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// revision is an author's new unit superseding their unit of a conflict
// sent back for rework.
type revision struct {
	conflict  model.Conflict
	revised   string // the author's unit the new one supersedes
	other     string // the conflict's other unit
	continued string // the conflict the new unit opens against other, if any
}

// revisionsBy finds the conflicts sent back for rework that a unit
// recorded by author with relations revises: each supersedes relation to a
// unit of the author's in such a conflict.
func revisionsBy(tx store.Tx, author string, rels []model.Relation) ([]revision, error) {
	var out []revision
	for _, r := range rels {
		if r.Type != model.RelSupersedes {
			continue
		}
		u, err := tx.Unit(r.TargetID)
		if err != nil {
			return nil, err
		}
		if u.Source.AgentID != author {
			continue
		}
		cs, err := tx.ConflictsOfUnit(u.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if c.Status == model.StatusResolving && c.Rework != nil {
				other, _ := c.Other(u.ID)
				out = append(out, revision{conflict: c, revised: u.ID, other: other})
			}
		}
	}
	return out, nil
}

// continues returns the conflict a contradicts relation to target
// continues: one of revs whose other unit it is.
func continues(revs []revision, target string) *revision {
	for i := range revs {
		if revs[i].other == target && revs[i].continued == "" {
			return &revs[i]
		}
	}
	return nil
}

// resolveRevision settles a conflict its author revised with unitID, in
// RECORD's transaction: the revised unit is superseded, and the conflict
// resolves with strategy rework, by the author, naming the revision (and
// the conflict that continues it, if the revision still contradicts the
// other unit). The authors and whoever sent it back are told; a MERGE
// event logs the resolution.
func resolveRevision(tx store.Tx, author model.Agent, unitID string, rev revision, epoch int64, now time.Time) error {
	d, err := detail(tx, model.OpRecord, rev.conflict.ID)
	if err != nil {
		return err
	}
	o := outcome{tx: tx, op: model.OpRecord, d: decision{ConflictDetail: d, caller: author}, by: author.ID, epoch: epoch, now: now}
	c := d.Conflict
	o.rationale = fmt.Sprintf("Revised by %s (%s), which supersedes %s", unitID, author.ID, rev.revised)
	if rev.continued != "" {
		o.rationale += fmt.Sprintf("; the revision still contradicts %s, so %s continues this conflict.", rev.other, rev.continued)
	} else {
		o.rationale += fmt.Sprintf(" and no longer contradicts %s.", rev.other)
	}
	if c.Rework != nil {
		o.rationale += fmt.Sprintf("\n\nSent back by %s: %s", c.Rework.By, c.Rework.Reason)
	}
	o.supersede(rev.revised)
	c.Status, c.Route = model.StatusResolved, nil
	c.Resolution = &model.Resolution{Strategy: model.Rework, Rationale: o.rationale, ResolvedBy: author.ID,
		EpochResolved: epoch, ResolvedAt: now}
	o.update(c)
	o.settle(rev.other)
	what := fmt.Sprintf("%s's revision %s supersedes %s", author.ID, unitID, rev.revised)
	if rev.continued != "" {
		what += fmt.Sprintf("; it still contradicts %s, so %s continues it", rev.other, rev.continued)
	}
	o.decided(what, &unitID, "")
	o.revision, o.continuedBy = unitID, rev.continued
	logDecision(&o, model.OpMerge, model.MergeRequest{ConflictID: c.ID, Strategy: model.Rework,
		Resolution: model.MergeResolution{Rationale: o.rationale}})
	return o.err
}
