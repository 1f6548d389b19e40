package review

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Reopen takes back the decision that resolved a conflict (arbiter's
// REOPEN), as one transaction: the conflict is escalated again, to the
// caller; the units the decision superseded stand again (contested, as
// units of an open conflict are) unless another decision superseded them
// too; a synthesis unit it created is retracted; the authors and the
// person who decided are notified; a REOPEN event is logged. Only a human
// operator reopens, only a resolved conflict, and only while no later
// decision depends on this one: a unit it would restore or retract takes
// part in a conflict resolved after it (or, for the synthesis unit, in any
// other conflict).
func (s *Service) Reopen(ctx context.Context, callerID string, req model.ReopenRequest) (model.ReopenResponse, error) {
	const op = model.OpReopen
	var resp model.ReopenResponse
	if strings.TrimSpace(req.Rationale) == "" {
		return resp, model.Errorf(op, model.CodeInvalidRequest, "say why in the rationale", "a rationale is required")
	}
	err := s.write(ctx, op, func(tx store.Tx) error {
		d, err := s.prepare(tx, op, callerID, req.ConflictID, req.ExpectedVersion)
		if err != nil {
			return err
		}
		c := d.Conflict
		switch {
		case !d.caller.IsHumanOperator():
			return model.Errorf(op, model.CodeNotPermitted, "ask a human operator",
				"only a human operator (authority 10) reopens a decision; %s has %d", d.caller.ID, d.caller.Authority)
		case c.Status != model.StatusResolved || c.Resolution == nil:
			return model.Errorf(op, model.CodeInvalidTransition, "only a resolved conflict is reopened",
				"%s is not resolved (it %s)", c.ID, describe(c))
		case c.Resolution.Strategy == model.Rework:
			return model.Errorf(op, model.CodeInvalidTransition, "record a unit that contradicts the revision instead",
				"%s was resolved by its author's revision, which stays in the field; there is no decision to take back", c.ID)
		}
		undo, err := undoing(tx, c)
		if err != nil {
			return err
		}
		resp, err = s.reopen(tx, d, undo, strings.TrimSpace(req.Rationale))
		return err
	})
	return resp, err
}

// undo is what taking a decision back changes.
type undo struct {
	restore []string // units to stand again
	retract *string  // the synthesis unit to retract
}

// undoing works out what reopening c changes, and refuses when a later
// decision depends on the one taken back.
func undoing(tx store.Tx, c model.Conflict) (undo, error) {
	r := c.Resolution
	var u undo
	var superseded []string
	switch {
	case r.SynthesisUnitID != nil:
		superseded, u.retract = []string{c.UnitA, c.UnitB}, r.SynthesisUnitID
	case r.WinnerID != nil:
		loser, _ := c.Other(*r.WinnerID)
		superseded = []string{loser}
	}
	touched := slices.Clone(superseded)
	if u.retract != nil {
		touched = append(touched, *u.retract)
	}
	for _, id := range touched {
		cs, err := tx.ConflictsOfUnit(id)
		if err != nil {
			return u, err
		}
		for _, other := range cs {
			if other.ID == c.ID {
				continue
			}
			later := other.Resolution != nil && other.Resolution.EpochResolved > r.EpochResolved
			if later || (u.retract != nil && id == *u.retract) {
				return u, model.Errorf(model.OpReopen, model.CodeInvalidTransition,
					"reopen "+other.ID+" first, or leave this decision be",
					"%s cannot be reopened: %s, which its decision touched, is part of %s (%s) since", c.ID, id, other.ID, other.Status)
			}
		}
	}
	for _, id := range superseded {
		again, err := supersededElsewhere(tx, id, c.ID)
		if err != nil {
			return u, err
		}
		if !again {
			u.restore = append(u.restore, id)
		}
	}
	return u, nil
}

// supersededElsewhere reports whether unit id would stay superseded
// without conflict except's decision: another resolved conflict
// superseded it, or a live unit supersedes it by relation.
func supersededElsewhere(tx store.Tx, id, except string) (bool, error) {
	cs, err := tx.ConflictsOfUnit(id)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if r := c.Resolution; c.ID != except && r != nil {
			if r.SynthesisUnitID != nil || (r.WinnerID != nil && *r.WinnerID != id) {
				return true, nil
			}
		}
	}
	links, err := tx.RelationsTo(id)
	if err != nil {
		return false, err
	}
	for _, l := range links {
		if l.Type != model.RelSupersedes {
			continue
		}
		if u, err := tx.Unit(l.From); err != nil {
			return false, err
		} else if u.Status.Stands() {
			return true, nil
		}
	}
	return false, nil
}

func (s *Service) reopen(tx store.Tx, d decision, u undo, rationale string) (model.ReopenResponse, error) {
	o := outcome{s: s, tx: tx, d: d, op: model.OpReopen, by: d.caller.ID, rationale: rationale}
	o.epoch, o.err = tx.EpochTick()
	o.now = s.now()
	c := d.Conflict
	undone := *c.Resolution
	if o.err == nil && d.Events == nil {
		d.Events, o.err = tx.EventsOfConflict(c.ID)
	}
	owner, why := model.ReopenOwner(d.ConflictDetail)
	if owner != "" {
		if ok, err := isPerson(tx, owner); err != nil || !ok {
			o.err, owner, why = cmp.Or(o.err, err), "", "its owner "+owner+" is not a registered person: any human operator"
		}
	}
	c.Status, c.Resolution = model.StatusEscalated, nil
	c.Escalation = &model.Escalation{By: o.by, Reason: rationale, Epoch: o.epoch, At: o.now}
	if o.err == nil {
		// Escalated back to the owner its route had, else the policy's
		// owner, under the policy's deadline and fallback.
		c.Route, _, o.err = routeFor(tx, model.OpReopen, d.ConflictDetail, routeEscalation, o.by, model.Routing{To: owner}, o.now)
	}
	o.update(c)
	for _, id := range u.restore {
		if o.err == nil {
			o.err = tx.UnitSetStatus(id, model.UnitActive)
		}
	}
	if u.retract != nil && o.err == nil {
		o.err = tx.UnitSetStatus(*u.retract, model.UnitRetracted)
	}
	if undone.Strategy == model.Dismiss && o.err == nil {
		// Taken back, "not a contradiction" is no longer said of the pair.
		o.err = tx.DetectUndismiss(c.UnitA, c.UnitB)
	}
	for _, id := range []string{c.UnitA, c.UnitB} {
		if o.err == nil {
			o.err = contest(tx, id)
		}
	}
	to := cmp.Or(owner, "any human operator")
	actors := append(o.authors(), owner)
	if owner == "" {
		ops, err := humanOperators(tx)
		o.err = cmp.Or(o.err, err)
		actors = append(actors, ops...)
	}
	o.tell(o.concerned(model.EventConflictReopened), model.Notification{Event: model.EventConflictReopened, RequiresAction: true,
		Summary: fmt.Sprintf("%s reopened by %s (its %s decision by %s is taken back) and routed to %s (%s)%s: %s",
			c.ID, o.by, undone.Strategy, undone.ResolvedBy, to, why, routeSentence(c.Route, o.now), oneLine(rationale))}, actors...)
	effects := model.ReopenEffects{Undone: undone, Restored: nonNil(u.restore), Retracted: u.retract, NotifiedAgents: nonNil(o.notified)}
	if o.err == nil {
		p := model.ReopenLog{ConflictID: c.ID, Rationale: rationale, ReopenEffects: effects}
		_, o.err = tx.EventAppend(model.Event{Epoch: o.epoch, Operation: model.OpReopen, AgentID: o.by,
			ConflictID: &c.ID, UnitID: u.retract, At: o.now, Payload: mustJSON(p)})
	}
	if o.err != nil {
		return model.ReopenResponse{}, o.err
	}
	return model.ReopenResponse{Conflict: o.conflict, ReopenEffects: effects}, nil
}
