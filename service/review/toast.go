package review

import (
	"errors"
	"fmt"

	"arbiter/model"
	"arbiter/store"
)

// toastOf says in a few words what notice n, to agentID, closed or
// changed of what they took part in, when it did: a vote they cast a
// ballot in closed, an escalation they own was decided by someone else,
// a proposal of theirs was approved, modified or not taken. Anything
// else, and what they did themselves, is no toast (ok false).
func toastOf(tx store.Tx, agentID string, n model.Notification) (model.Toast, bool, error) {
	if n.ConflictID == nil || (n.Event != model.EventVoteClosed && n.Event != model.EventConflictResolved) {
		return model.Toast{}, false, nil
	}
	c, err := tx.Conflict(*n.ConflictID)
	if errors.Is(err, store.ErrNotFound) {
		return model.Toast{}, false, nil
	}
	if err != nil {
		return model.Toast{}, false, err
	}
	toast := func(text string) (model.Toast, bool, error) {
		return model.Toast{NotificationID: n.ID, ConflictID: c.ID, Text: text}, true, nil
	}
	r := c.Resolution
	if n.Event == model.EventVoteClosed {
		switch {
		case r != nil && r.ResolvedBy != agentID:
			return toast(fmt.Sprintf("The vote on %s closed: %s.", c.ID, outcomeOf(c)))
		case r == nil && c.Escalation != nil && c.Escalation.By != agentID:
			return toast(fmt.Sprintf("The vote on %s closed without a majority: it is %s now.", c.ID, c.Status))
		}
		return model.Toast{}, false, nil
	}
	if r == nil || r.ResolvedBy == agentID {
		return model.Toast{}, false, nil // taken back since, or their own decision
	}
	by := r.ResolvedBy
	if by == model.FallbackAgent {
		by = "its deadline's fallback"
	}
	if p := c.Proposal; p != nil && p.By == agentID {
		synthesis := ""
		if r.SynthesisUnitID != nil {
			u, err := tx.Unit(*r.SynthesisUnitID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return model.Toast{}, false, err
			}
			synthesis = u.Content
		}
		switch model.ProposalVerdict(p, r, synthesis) {
		case "approved", "carried out by the fallback":
			return toast(fmt.Sprintf("Your proposal on %s was approved by %s.", c.ID, by))
		case "modified":
			return toast(fmt.Sprintf("Your proposal on %s was modified by %s: %s.", c.ID, by, outcomeOf(c)))
		default:
			return toast(fmt.Sprintf("Your proposal on %s was not taken: %s decided %s.", c.ID, by, outcomeOf(c)))
		}
	}
	events, err := tx.EventsOfConflict(c.ID)
	if err != nil {
		return model.Toast{}, false, err
	}
	if model.RoutedOwner(events) == agentID {
		return toast(fmt.Sprintf("%s, escalated to you, was decided by %s: %s.", c.ID, by, outcomeOf(c)))
	}
	return model.Toast{}, false, nil
}

// outcomeOf is what a resolved conflict's decision did, in a few words.
func outcomeOf(c model.Conflict) string {
	r := c.Resolution
	switch {
	case r == nil:
		return "it is " + string(c.Status)
	case r.SynthesisUnitID != nil:
		return "a synthesis, " + *r.SynthesisUnitID + ", replaces both units"
	case r.WinnerID != nil:
		return fmt.Sprintf("%s (%s) prevails", *r.WinnerID, c.Side(*r.WinnerID))
	}
	return "dismissed, both units stand"
}
