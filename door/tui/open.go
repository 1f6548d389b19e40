package tui

import (
	"fmt"

	"arbiter/model"
)

// openConflict is one conflict as the screen holds it: what the field
// said of it last (its detail, and so its version) and the drafts typed
// on it. It is the one value the conflict's view and both forms read, so
// that a reload reaches all three by one rule (reload).
type openConflict struct {
	id     string
	detail model.ConflictDetail
	loaded bool
	err    error
	// notice says what changed on disk while the conflict was on screen.
	notice string
	// decide is the decision being written, kept until it is written;
	// vote, the ballot.
	decide *decideForm
	vote   *voteForm
	// offered are the person's drafts kept in the field from an earlier
	// session, offered back until taken up or dropped (drafts.go).
	offered []model.Draft
}

// drafting reports whether a form holds something typed and not yet
// sent.
func (c *openConflict) drafting() bool {
	return (c.decide != nil && !c.decide.busy) || (c.vote != nil && !c.vote.busy)
}

// reload takes the field's new state d of the conflict. The view and both
// forms show it from then on. A change made by someone else (not ours:
// the version our own write left) is said in the notice; what was typed
// is kept, the decision form's choices follow the new state, and a form
// that was asking to confirm asks again, now on the new state.
func (c *openConflict) reload(d model.ConflictDetail, me model.Agent, ours int64) {
	before, now := c.detail.Conflict, d.Conflict.Version
	if c.loaded && before.Version != now && ours != now {
		c.notice = fmt.Sprintf("%s changed while on screen: it %s.", before.ID, describeConflict(d.Conflict))
		if c.drafting() {
			c.notice += " What you typed is kept; it now applies to the new state."
		}
		if c.decide != nil {
			c.decide.confirming = false
		}
		if c.vote != nil {
			c.vote.confirming = false
		}
	}
	c.detail, c.loaded, c.err = d, true, nil
	if f := c.decide; f != nil {
		f.refresh(me)
	}
}

func describeConflict(c model.Conflict) string {
	switch {
	case c.Resolution != nil:
		return fmt.Sprintf("was resolved by %s (%s)", c.Resolution.ResolvedBy, c.Resolution.Strategy)
	case c.Status == model.StatusEscalated && c.Escalation != nil:
		return "was escalated by " + c.Escalation.By
	}
	return "is now " + string(c.Status)
}

// openState makes conflict id the open one: the one the screen held already,
// with its drafts, or a new one. The conflict left is forgotten unless a
// draft is kept on it.
func (m *Model) openState(id string) *openConflict {
	if prev := m.conflict.openConflict; prev.id != id && prev.decide == nil && prev.vote == nil {
		delete(m.held, prev.id)
	}
	c := m.held[id]
	if c == nil {
		c = &openConflict{id: id}
		m.held[id] = c
	}
	return c
}

// draft is the decision being written on conflict id, if any.
func (m *Model) draft(id string) *decideForm {
	if c := m.held[id]; c != nil {
		return c.decide
	}
	return nil
}

// ballot is the ballot being written on conflict id, if any.
func (m *Model) ballot(id string) *voteForm {
	if c := m.held[id]; c != nil {
		return c.vote
	}
	return nil
}
