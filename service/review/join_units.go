package review

import (
	"errors"
	"fmt"

	"arbiter/model"
	"arbiter/store"
)

// bringUnits adds the units recorded in the fork since the last join (or
// the fork), in the fork's order: under their own ids where the field
// has no unit of that id, else under new ones; every relation pointing
// at a unit the fork added points at it here. Each keeps where it came
// from (provenance). A fork unit that revises a unit from before the fork
// that the field revised too is noted for a conflict (openRevisions).
func (j *joiner) bringUnits() error {
	var fresh []model.Unit
	err := j.ftx.UnitEachSince(j.since, func(_ int64, u model.Unit) error {
		fresh = append(fresh, u)
		return nil
	})
	if err != nil {
		return err
	}
	// The fork's ids that are free here are kept: a unit renamed takes
	// none of them.
	j.reserved = map[string]bool{}
	for _, u := range fresh {
		if taken, err := j.tx.UnitExists(u.ID); err != nil {
			return err
		} else if !taken {
			j.reserved[u.ID] = true
		}
	}
	for _, u := range fresh {
		if err := j.bringUnit(u); err != nil {
			return err
		}
	}
	return nil
}

func (j *joiner) bringUnit(u model.Unit) error {
	switch p, err := j.tx.ProvenanceByFork(j.uid, model.ProvenanceUnit, u.ID); {
	case err == nil:
		j.units[u.ID] = p.ID // brought by an earlier join
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	j.rep.Divergence.Fork.Added++
	var revised []string
	rels := make([]model.Relation, len(u.Relations))
	for i, r := range u.Relations {
		here, fromFork, err := j.unitHere(r.TargetID)
		if err != nil {
			return err
		}
		if !fromFork {
			if ok, err := j.tx.UnitExists(here); err != nil {
				return err
			} else if !ok {
				return model.Errorf(model.OpJoin, model.CodeUnitNotFound, "give --base-epoch an earlier epoch, where the two had not yet diverged",
					"the fork's %s relates to %s, which this field does not hold", u.ID, r.TargetID)
			}
			if r.Type == model.RelSupersedes {
				revised = append(revised, here)
			}
		}
		r.TargetID = here
		rels[i] = r
	}
	if len(revised) > 0 {
		j.rep.Divergence.Fork.Revised++
	}
	forkID := u.ID
	if !j.reserved[u.ID] {
		var err error
		if u.ID, err = j.freeUnitID(); err != nil {
			return err
		}
		j.rep.UnitsRenamed++
	}
	u.Relations = rels
	id, err := j.tx.UnitInsert(u)
	if err != nil {
		return err
	}
	if err := j.tx.UnitSeqAlign(id); err != nil {
		return err
	}
	j.units[forkID], j.fresh[id], j.forkIDs[id] = id, true, forkID
	j.rep.UnitsAdded++
	err = j.tx.ProvenancePut(model.Provenance{Kind: model.ProvenanceUnit, ID: id, ForkUID: j.uid, ForkName: j.name,
		ForkID: forkID, Epoch: j.epoch})
	if err != nil {
		return err
	}
	for _, base := range revised {
		if err := j.revisedHereToo(base, id, forkID); err != nil {
			return err
		}
	}
	return nil
}

// freeUnitID is the first id of arbiter's form (mem-NNN) from the next
// sequence number on that no unit holds and no fork unit keeps.
func (j *joiner) freeUnitID() (string, error) {
	n, err := j.tx.UnitSeqNext()
	if err != nil {
		return "", err
	}
	for ; ; n++ {
		id := fmt.Sprintf("mem-%03d", n)
		if j.reserved[id] {
			continue
		}
		if taken, err := j.tx.UnitExists(id); err != nil || !taken {
			return id, err
		}
	}
}

// unitHere returns the id here of the fork's unit id, and whether the
// unit came from the fork (this join or an earlier one) rather than from
// before the fork.
func (j *joiner) unitHere(id string) (string, bool, error) {
	if here, ok := j.units[id]; ok {
		return here, true, nil
	}
	p, err := j.tx.ProvenanceByFork(j.uid, model.ProvenanceUnit, id)
	switch {
	case err == nil:
		j.units[id] = p.ID
		return p.ID, true, nil
	case errors.Is(err, store.ErrNotFound):
		return id, false, nil
	}
	return "", false, err
}

// mapUnit is unitHere for an id that may be empty.
func (j *joiner) mapUnit(p *string) (*string, error) {
	if p == nil {
		return nil, nil
	}
	here, _, err := j.unitHere(*p)
	return &here, err
}

// revisedHereToo notes each standing unit the field recorded after the
// fork that supersedes base too: a pair of revisions for openRevisions.
func (j *joiner) revisedHereToo(base, id, forkID string) error {
	links, err := j.tx.RelationsTo(base)
	if err != nil {
		return err
	}
	for _, l := range links {
		if l.Type != model.RelSupersedes {
			continue
		}
		if own, err := j.fieldsOwn(l.From); err != nil {
			return err
		} else if own {
			j.revisions = append(j.revisions, bothRevised{base: base, here: l.From, there: id, forkID: forkID})
		}
	}
	return nil
}

// fieldsOwn reports whether unit id here is the field's own work after
// the fork, still standing: not from before the fork, not brought from
// this fork (by this join or an earlier one).
func (j *joiner) fieldsOwn(id string) (bool, error) {
	if j.fresh[id] {
		return false, nil
	}
	if p, err := j.tx.Provenance(model.ProvenanceUnit, id); err == nil && p.ForkUID == j.uid {
		return false, nil
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	u, err := j.tx.Unit(id)
	if err != nil {
		return false, err
	}
	return u.Epoch > j.base && u.Status.Stands(), nil
}

// tip follows a side's revisions of unit id (the units that supersede
// it, then those that supersede them, …, taking the first that is still
// the side's) to the latest, at most maxAncestryDepth steps.
func (j *joiner) tip(id string, side func(string) (bool, error)) (model.Unit, error) {
	for range maxAncestryDepth {
		links, err := j.tx.RelationsTo(id)
		if err != nil {
			return model.Unit{}, err
		}
		next := ""
		for _, l := range links {
			if l.Type != model.RelSupersedes || l.From == id {
				continue
			}
			if ok, err := side(l.From); err != nil {
				return model.Unit{}, err
			} else if ok {
				next = l.From
				break
			}
		}
		if next == "" {
			break
		}
		id = next
	}
	return j.tx.Unit(id)
}

// openRevisions opens a conflict between each pair of revisions noted,
// the field's as unit A and the fork's as unit B, and escalates it to a
// person: their three-way view has the unit both revised as ancestor.
func (j *joiner) openRevisions() error {
	fresh := func(id string) (bool, error) { return j.fresh[id], nil }
	seen := map[[2]string]bool{}
	for _, r := range j.revisions {
		// Each side's latest revision is what a person weighs.
		here, err := j.tip(r.here, j.fieldsOwn)
		if err != nil {
			return err
		}
		there, err := j.tip(r.there, fresh)
		if err != nil {
			return err
		}
		if here.Content == there.Content {
			j.rep.RevisedAlike++
			continue
		}
		if seen[[2]string{here.ID, there.ID}] {
			continue
		}
		seen[[2]string{here.ID, there.ID}] = true
		r.here, r.there, r.forkID = here.ID, there.ID, j.forkIDs[there.ID]
		epoch, err := j.tx.EpochTick()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("both sides revised %s: %s here, %s in the fork %s (%s there)", r.base, r.here, r.there, j.name, r.forkID)
		c, err := OpenConflict(j.tx, j.by, model.Conflict{Type: model.ConflictFactual, UnitA: r.here, UnitB: r.there,
			Description: desc, DetectedBy: model.DetectedExplicit, DetectedAt: j.now, Epoch: epoch})
		if err != nil {
			return err
		}
		reason := fmt.Sprintf("joining %s: %s was revised on both sides, differently; a person decides", j.name, r.base)
		if err := j.escalate(c.ID, reason); err != nil {
			return err
		}
		if err := j.logConflict(c.ID, model.JoinRevision, "", nil); err != nil {
			return err
		}
		j.rep.RevisionConflicts = append(j.rep.RevisionConflicts, c.ID)
	}
	return nil
}

// escalate sends conflict id to people, as a MERGE with human_escalation
// by the joining person would: routed by the policy, its notices by the
// notification rules.
func (j *joiner) escalate(id, reason string) error {
	d := decision{caller: j.by}
	var err error
	if d.ConflictDetail, err = detail(j.tx, model.OpJoin, id); err != nil {
		return err
	}
	o := outcome{s: j.s, tx: j.tx, op: model.OpJoin, d: d, by: j.by.ID, rationale: reason}
	o.epoch, o.err = j.tx.EpochTick()
	o.now = j.now
	o.escalate(reason, model.Routing{}, nil)
	logDecision(&o, model.OpMerge, model.MergeRequest{ConflictID: id, Strategy: model.HumanEscalation,
		Resolution: model.MergeResolution{Rationale: reason}})
	return o.err
}
