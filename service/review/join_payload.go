package review

import (
	"encoding/json"

	"arbiter/model"
)

// remapPayload is a brought event's payload with the ids of the fork's
// units and conflicts in it changed to what the join made of them here,
// field by field of the type its operation logs (model/event.go): a unit
// id becomes the unit's id here, a conflict id this join brought the
// conflict's. Text that only mentions an id (a rationale, a summary) is
// left as it was written, and the id a JOIN event keeps of the fork's
// conflict stays the fork's. A payload whose ids all stay is kept byte
// for byte; one that does not read as its type is an error naming the
// event.
func (j *joiner) remapPayload(e model.Event) (json.RawMessage, error) {
	m := &idMap{j: j}
	switch e.Operation {
	case model.OpDetect:
		return remapped(e, m, m.detected)
	case model.OpMerge:
		return remapped(e, m, func(p *model.MergeLog) {
			m.conflict(&p.Request.ConflictID)
			m.unitPtr(p.Request.Resolution.WinnerID)
			if p.Request.Proposal != nil {
				m.unitPtr(p.Request.Proposal.WinnerID)
			}
			decided(m, p)
		})
	case model.OpVote:
		return remapped(e, m, func(p *model.VoteLog) {
			m.conflict(&p.Request.ConflictID)
			m.unit(&p.Request.Choice)
			decided(m, p)
		})
	case model.OpRework:
		return remapped(e, m, func(p *model.ReworkLog) {
			m.conflict(&p.Request.ConflictID)
			decided(m, p)
		})
	case model.OpReopen:
		return remapped(e, m, func(p *model.ReopenLog) {
			m.conflict(&p.ConflictID)
			m.resolution(&p.Undone)
			m.units(p.Restored)
			m.unitPtr(p.Retracted)
		})
	case model.OpRemind:
		return remapped(e, m, func(p *model.RemindLog) { m.conflict(&p.ConflictID) })
	case model.OpJoin:
		return remapped(e, m, func(p *model.JoinLog) { m.resolution(p.Decision) })
	}
	return e.Payload, nil
}

// remapped decodes e's payload as a T, remaps its ids, and encodes it
// again if any changed.
func remapped[T any](e model.Event, m *idMap, remap func(*T)) (json.RawMessage, error) {
	if len(e.Payload) == 0 {
		return e.Payload, nil
	}
	p, err := model.DecodePayload[T](e)
	if err != nil {
		return nil, err
	}
	remap(&p)
	if m.err != nil || !m.changed {
		return e.Payload, m.err
	}
	return json.Marshal(p)
}

// decided remaps what a decision's log says it did.
func decided[R any](m *idMap, p *model.DecisionLog[R]) {
	m.units(p.SupersededUnits)
	m.unitPtr(p.NewUnitID)
	for i := range p.OverriddenBallots {
		b := &p.OverriddenBallots[i]
		m.conflict(&b.ConflictID)
		m.unit(&b.Choice)
	}
	if p.Timeout != nil {
		m.unitPtr(p.Timeout.WinnerID)
	}
	m.unit(&p.Revision)
	m.conflict(&p.ContinuedBy)
}

// idMap changes ids in place to what the join made of them, noting
// whether any changed and the first error.
type idMap struct {
	j       *joiner
	changed bool
	err     error
}

// detected remaps a conflict as DETECT logs it.
func (m *idMap) detected(c *model.Conflict) {
	m.conflict(&c.ID)
	m.unit(&c.UnitA)
	m.unit(&c.UnitB)
	m.conflict(&c.ReworkOf)
	m.resolution(c.Resolution)
	if c.Proposal != nil {
		m.unitPtr(c.Proposal.WinnerID)
	}
}

func (m *idMap) unit(id *string) {
	if m.err != nil || *id == "" {
		return
	}
	here, _, err := m.j.unitHere(*id)
	m.set(id, here, err)
}

func (m *idMap) unitPtr(id *string) {
	if id != nil {
		m.unit(id)
	}
}

func (m *idMap) units(ids []string) {
	for i := range ids {
		m.unit(&ids[i])
	}
}

func (m *idMap) conflict(id *string) {
	if here, ok := m.j.conflicts[*id]; ok {
		m.set(id, here, nil)
	}
}

func (m *idMap) resolution(r *model.Resolution) {
	if r != nil {
		m.unitPtr(r.WinnerID)
		m.unitPtr(r.SynthesisUnitID)
	}
}

func (m *idMap) set(id *string, here string, err error) {
	if err != nil {
		m.err = err
		return
	}
	if here != *id {
		*id, m.changed = here, true
	}
}
