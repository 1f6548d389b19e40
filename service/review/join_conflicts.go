package review

import (
	"errors"
	"fmt"

	"arbiter/model"
	"arbiter/store"
)

// bringConflicts brings the conflicts opened in the fork since the last
// join, with their ballots and history, and compares the decisions the
// fork took since on conflicts both sides hold.
func (j *joiner) bringConflicts() error {
	var news []model.Conflict
	err := j.ftx.ConflictEachStored(func(_ int64, c model.Conflict) error {
		decided := c.Status == model.StatusResolved && c.Resolution != nil && c.Resolution.EpochResolved > j.since
		if decided {
			j.rep.Divergence.Fork.Decided++
		}
		if c.Epoch > j.since || decided {
			news = append(news, c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range news {
		here, known, err := j.conflictHere(c)
		switch {
		case err != nil:
			return err
		case !known:
			err = j.bring(c)
		case c.Status == model.StatusResolved && c.Resolution != nil && c.Resolution.EpochResolved > j.since:
			err = j.decided(here, c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// conflictHere finds the fork's conflict c here: the same conflict from
// before the fork, or the one an earlier join brought; known is false for
// a conflict the field does not hold.
func (j *joiner) conflictHere(c model.Conflict) (here string, known bool, err error) {
	if id, ok := j.conflicts[c.ID]; ok {
		return id, true, nil
	}
	p, err := j.tx.ProvenanceByFork(j.uid, model.ProvenanceConflict, c.ID)
	if err == nil {
		return p.ID, true, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", false, err
	}
	if c.Epoch > j.base {
		return "", false, nil
	}
	if _, err := j.tx.Conflict(c.ID); errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	} else if err != nil {
		return "", false, err
	}
	return c.ID, true, nil
}

// bring adds the fork's conflict c under a new id, its units, ballots and
// history's ids those here; the units from before the fork that it
// touches stand as the fork left them; the authors of an open one are
// told.
func (j *joiner) bring(c model.Conflict) error {
	forkID, forkA, forkB := c.ID, c.UnitA, c.UnitB
	var err error
	var a, b *string
	if a, err = j.mapUnit(&c.UnitA); err == nil {
		b, err = j.mapUnit(&c.UnitB)
	}
	if err != nil {
		return err
	}
	c.ID, c.UnitA, c.UnitB = "", *a, *b
	for _, id := range []string{c.UnitA, c.UnitB} {
		if ok, err := j.tx.UnitExists(id); err != nil {
			return err
		} else if !ok {
			return model.Errorf(model.OpJoin, model.CodeUnitNotFound, "give --base-epoch an earlier epoch, where the two had not yet diverged",
				"the fork's %s is about %s, which this field does not hold", forkID, id)
		}
	}
	if c.ReworkOf != "" {
		if here, ok := j.conflicts[c.ReworkOf]; ok {
			c.ReworkOf = here
		}
	}
	if r := c.Resolution; r != nil {
		res := *r
		if res.WinnerID, err = j.mapUnit(r.WinnerID); err == nil {
			res.SynthesisUnitID, err = j.mapUnit(r.SynthesisUnitID)
		}
		c.Resolution = &res
	}
	if p := c.Proposal; p != nil && err == nil {
		prop := *p
		prop.WinnerID, err = j.mapUnit(p.WinnerID)
		c.Proposal = &prop
	}
	if err != nil {
		return err
	}
	id, err := j.tx.ConflictInsert(c)
	if err != nil {
		return err
	}
	j.conflicts[forkID] = id
	j.rep.ConflictsBrought++
	if err := j.tx.ProvenancePut(model.Provenance{Kind: model.ProvenanceConflict, ID: id, ForkUID: j.uid,
		ForkName: j.name, ForkID: forkID, Epoch: j.epoch}); err != nil {
		return err
	}
	if err := j.bringBallots(forkID, id); err != nil {
		return err
	}
	if err := j.bringEvents(forkID, id, 0); err != nil {
		return err
	}
	if err := j.logConflict(id, model.JoinBrought, forkID, nil); err != nil {
		return err
	}
	for _, u := range []string{forkA, forkB} {
		if err := j.follow(u); err != nil {
			return err
		}
	}
	if !c.Status.Open() {
		return nil
	}
	authors, err := j.authors(c.UnitA, c.UnitB)
	if err != nil {
		return err
	}
	_, err = notify(j.tx, authors, model.Notification{Event: model.EventConflictDetected, Epoch: j.epoch, CreatedAt: j.now,
		ConflictID: &id, MemoryUnitID: &c.UnitB, RequiresAction: true,
		Summary: fmt.Sprintf("%s: %s contradicts %s; joined from %s (%s there), where it is %s", id, c.UnitB, c.UnitA, j.name, forkID, c.Status)})
	return err
}

func (j *joiner) bringBallots(forkID, id string) error {
	ballots, err := j.ftx.Ballots(forkID)
	if err != nil {
		return err
	}
	for _, b := range ballots {
		choice, _, err := j.unitHere(b.Choice)
		if err != nil {
			return err
		}
		b.ConflictID, b.Choice = id, choice
		if err := j.tx.BallotPut(b); err != nil {
			return err
		}
		j.rep.BallotsBrought++
	}
	return nil
}

// bringEvents appends the fork's events of conflict forkID after epoch
// after to the history of id here, as the fork logged them but for the
// ids of units and conflicts, which become this field's (remapPayload).
func (j *joiner) bringEvents(forkID, id string, after int64) error {
	events, err := j.ftx.EventsOfConflict(forkID)
	if err != nil {
		return err
	}
	for _, e := range events {
		if e.Epoch <= after {
			continue
		}
		e.ID, e.ConflictID = 0, &id
		if e.UnitID, err = j.mapUnit(e.UnitID); err != nil {
			return err
		}
		if e.Payload, err = j.remapPayload(e); err != nil {
			return err
		}
		if _, err := j.tx.EventAppend(e); err != nil {
			return err
		}
		j.rep.EventsBrought++
	}
	return nil
}

// follow makes a unit from before the fork that a brought conflict is
// about stand here as the fork left it: superseded or retracted if the
// fork's decisions left it so, contested while the fork's conflict is
// open. A unit the fork added already stands as the fork left it.
func (j *joiner) follow(forkUnit string) error {
	here, fromFork, err := j.unitHere(forkUnit)
	if err != nil || fromFork {
		return err
	}
	theirs, err := j.ftx.Unit(forkUnit)
	if err != nil {
		return err
	}
	mine, err := j.tx.Unit(here)
	if err != nil {
		return err
	}
	switch theirs.Status {
	case model.UnitSuperseded, model.UnitRetracted:
		if mine.Status.Stands() {
			return j.tx.UnitSetStatus(here, theirs.Status)
		}
	case model.UnitContested:
		return contest(j.tx, here)
	}
	return nil
}

// authors returns the authors of two units here.
func (j *joiner) authors(a, b string) ([]string, error) {
	ua, err := j.tx.Unit(a)
	if err != nil {
		return nil, err
	}
	ub, err := j.tx.Unit(b)
	return []string{ua.Source.AgentID, ub.Source.AgentID}, err
}
