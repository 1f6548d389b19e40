package review

import (
	"errors"
	"fmt"

	"arbiter/model"
	"arbiter/store"
)

// decided compares the fork's decision of its conflict k, taken since the
// last join, with the field's of the same conflict, here: decided in the
// fork only, the fork's decision is taken; the same way on both sides,
// nothing changes; differently, the conflict goes before a person again.
func (j *joiner) decided(here string, k model.Conflict) error {
	theirs, err := j.theirDecision(k)
	if err != nil {
		return err
	}
	mine, err := j.tx.Conflict(here)
	if err != nil {
		return err
	}
	if mine.Status != model.StatusResolved || mine.Resolution == nil {
		return j.take(mine, k, theirs)
	}
	same, err := j.sameDecision(*mine.Resolution, theirs)
	if err != nil || same {
		j.rep.DecisionsSame++
		return err
	}
	return j.differ(mine, k, theirs)
}

// theirDecision is the fork's resolution of k, its units' ids here.
func (j *joiner) theirDecision(k model.Conflict) (model.Resolution, error) {
	r := *k.Resolution
	var err error
	if r.WinnerID, err = j.mapUnit(r.WinnerID); err != nil {
		return r, err
	}
	r.SynthesisUnitID, err = j.mapUnit(r.SynthesisUnitID)
	return r, err
}

// sameDecision reports whether two resolutions decided alike: the same
// strategy and winner, or syntheses of the same text.
func (j *joiner) sameDecision(a, b model.Resolution) (bool, error) {
	if a.Strategy != b.Strategy || deref(a.WinnerID) != deref(b.WinnerID) {
		return false, nil
	}
	if a.SynthesisUnitID == nil || b.SynthesisUnitID == nil {
		return a.SynthesisUnitID == nil && b.SynthesisUnitID == nil, nil
	}
	ua, err := j.tx.Unit(*a.SynthesisUnitID)
	if err != nil {
		return false, err
	}
	ub, err := j.tx.Unit(*b.SynthesisUnitID)
	return err == nil && ua.Content == ub.Content, err
}

// take decides the field's open conflict mine as the fork decided it:
// the resolution keeps who decided in the fork and why, the units stand
// as that decision leaves them, the authors are told, and the fork's
// history of the decision is brought.
func (j *joiner) take(mine, k model.Conflict, theirs model.Resolution) error {
	epoch, err := j.tx.EpochTick()
	if err != nil {
		return err
	}
	c := mine
	c.Status, c.Route = model.StatusResolved, nil
	theirs.EpochResolved = epoch
	c.Resolution = &theirs
	if err := j.tx.ConflictUpdate(c, mine.Version); err != nil {
		if store.IsStale(err) {
			err = model.Errorf(model.OpJoin, model.CodeInvalidTransition, "join again", "%s changed while joining", c.ID)
		}
		return err
	}
	var superseded []string
	switch {
	case theirs.SynthesisUnitID != nil:
		superseded = []string{c.UnitA, c.UnitB}
	case theirs.WinnerID != nil:
		loser, _ := c.Other(*theirs.WinnerID)
		superseded = []string{loser}
	}
	for _, id := range superseded {
		if err := j.tx.UnitSetStatus(id, model.UnitSuperseded); err != nil {
			return err
		}
	}
	for _, id := range []string{c.UnitA, c.UnitB} {
		if err := settle(j.tx, id); err != nil {
			return err
		}
	}
	authors, err := j.authors(c.UnitA, c.UnitB)
	if err != nil {
		return err
	}
	summary := fmt.Sprintf("%s resolved in the fork %s by %s (%s), taken by joining it", c.ID, j.name, theirs.ResolvedBy, theirs.Strategy)
	if w := theirs.WinnerID; w != nil {
		summary += fmt.Sprintf(": %s prevails", *w)
	}
	if _, err := notify(j.tx, authors, model.Notification{Event: model.EventConflictResolved, Epoch: epoch, CreatedAt: j.now,
		ConflictID: &c.ID, Summary: summary}); err != nil {
		return err
	}
	if err := j.bringEvents(k.ID, c.ID, j.since); err != nil {
		return err
	}
	j.rep.DecisionsTaken = append(j.rep.DecisionsTaken, c.ID)
	return j.logConflict(c.ID, model.JoinDecided, k.ID, &theirs)
}

// differ puts the conflict mine, decided here and in the fork
// differently, before a person again: the decision here is taken back as
// a REOPEN would (escalated to the owner its route had, else the
// policy's owner, else any human operator; the units standing as
// before either decision, the authors and the decider told), with both
// decisions and both rationales in the reopening's rationale; a synthesis
// the fork wrote is retracted. When the decision here cannot be taken
// back (a later decision depends on it) it stays, and the report says so.
func (j *joiner) differ(mine, k model.Conflict, theirs model.Resolution) error {
	here := *mine.Resolution
	rationale := fmt.Sprintf("Joining the fork %s: decided differently on the two sides. Here %s decided %s: %s In the fork %s decided %s: %s",
		j.name, here.ResolvedBy, decisionText(here), oneLine(here.Rationale), theirs.ResolvedBy, decisionText(theirs), oneLine(theirs.Rationale))
	undo, err := undoing(j.tx, mine)
	var pe *model.Error
	if errors.As(err, &pe) || here.Strategy == model.Rework {
		j.rep.DecisionsKept = append(j.rep.DecisionsKept, mine.ID)
		return j.logConflict(mine.ID, model.JoinDiffered, k.ID, &theirs)
	} else if err != nil {
		return err
	}
	d := decision{caller: j.by}
	if d.ConflictDetail, err = detail(j.tx, model.OpJoin, mine.ID); err != nil {
		return err
	}
	if _, err := j.s.reopen(j.tx, d, undo, rationale); err != nil {
		return err
	}
	if id := theirs.SynthesisUnitID; id != nil && j.fresh[*id] {
		if err := j.tx.UnitSetStatus(*id, model.UnitRetracted); err != nil {
			return err
		}
	}
	if err := j.bringEvents(k.ID, mine.ID, j.since); err != nil {
		return err
	}
	j.rep.DecisionsDiffer = append(j.rep.DecisionsDiffer, mine.ID)
	return j.logConflict(mine.ID, model.JoinDiffered, k.ID, &theirs)
}

// decisionText says what a resolution decided: "pick_a (mem-040
// prevails)", "synthesis (mem-210)", "dismiss".
func decisionText(r model.Resolution) string {
	switch {
	case r.WinnerID != nil:
		return fmt.Sprintf("%s (%s prevails)", r.Strategy, *r.WinnerID)
	case r.SynthesisUnitID != nil:
		return fmt.Sprintf("%s (%s)", r.Strategy, *r.SynthesisUnitID)
	}
	return string(r.Strategy)
}

// divergence counts, on a dry run and before the join changes anything,
// what the field did after the fork: the units it added (not brought by
// an earlier join of this fork), those of them that revise another, and
// the conflicts it decided.
func (j *joiner) divergence() error {
	if !j.dry {
		return nil
	}
	side := &j.rep.Divergence.Field
	var mine []model.Unit
	err := j.tx.UnitEachSince(j.base, func(_ int64, u model.Unit) error {
		mine = append(mine, u)
		return nil
	})
	if err != nil {
		return err
	}
	for _, u := range mine {
		if p, err := j.tx.Provenance(model.ProvenanceUnit, u.ID); err == nil && p.ForkUID == j.uid {
			continue
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		side.Added++
		for _, r := range u.Relations {
			if r.Type == model.RelSupersedes {
				side.Revised++
				break
			}
		}
	}
	return j.tx.ConflictEachStored(func(_ int64, c model.Conflict) error {
		if r := c.Resolution; r != nil && c.Status == model.StatusResolved && r.EpochResolved > j.base {
			side.Decided++
		}
		return nil
	})
}
