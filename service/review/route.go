package review

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// routeKind is what a route is for: it decides the owner and which
// fallbacks it may have.
type routeKind int

const (
	routeEscalation routeKind = iota // to an owner: --to, else the policy's, else any human operator
	routeVote                        // to the eligible voters
	routeRework                      // to the conflict's authors, on behalf of whoever sent it back
)

// checkRouting refuses a routing that cannot be right whatever the field
// holds: a deadline or a fallback that does not parse, a fallback without
// any deadline is checked against the policy later (routeFor).
func checkRouting(op string, r model.Routing) error {
	if strings.TrimSpace(r.Deadline) != "" {
		if _, err := model.ParseDeadline(r.Deadline); err != nil {
			return model.Errorf(op, model.CodeInvalidRequest, "use a duration such as 90s, 4h or 2d", "%v", err)
		}
	}
	if _, err := model.ParseFallback(string(r.Fallback)); err != nil {
		return model.Errorf(op, model.CodeInvalidRequest, "", "%v", err)
	}
	return nil
}

// routeFor works out the route of the conflict of d as it is sent to
// people (or back to its authors) by `by` at now, from the request's
// routing and the field's policy:
//
//   - the owner is r.To, else the policy's owner for the conflict's type,
//     else nobody in particular (any human operator); a vote has none; a
//     rework is owned by whoever sent it back (a person; "" for the
//     fallback). An owner named in the request must be a registered
//     person; a policy's owner that is not is passed over, and note says
//     so;
//   - the deadline is r.Deadline after now, else the policy's escalation
//     timeout, else none;
//   - the fallback is r.Fallback, else the policy's; an escalate:ID must
//     name a registered person; a rework's fallback is never rework (one
//     from the policy is dropped).
//
// A fallback given without any deadline is INVALID_REQUEST.
func routeFor(tx store.Tx, op string, d model.ConflictDetail, kind routeKind, by string, r model.Routing, now time.Time) (route *model.Route, note string, err error) {
	p := d.Policy
	route = &model.Route{Since: now}
	switch kind {
	case routeEscalation:
		if to := strings.TrimSpace(r.To); to != "" {
			if err := mustBePerson(tx, op, to, "an escalation is routed to a person"); err != nil {
				return nil, "", err
			}
			route.Owner = to
		} else if owner := p.Owners[d.Conflict.Type]; owner != "" {
			if ok, err := isPerson(tx, owner); err != nil {
				return nil, "", err
			} else if ok {
				route.Owner = owner
			} else {
				note = fmt.Sprintf("the policy's owner of %s conflicts, %s, is not a registered person: routed to any human operator", d.Conflict.Type, owner)
			}
		}
	case routeVote:
		if strings.TrimSpace(r.To) != "" {
			return nil, "", model.Errorf(op, model.CodeInvalidRequest, "leave out the owner", "a vote goes to its eligible voters, not to one person")
		}
	case routeRework:
		if by != model.FallbackAgent {
			route.Owner = by
		}
	}
	var length time.Duration
	if strings.TrimSpace(r.Deadline) != "" {
		if length, err = model.ParseDeadline(r.Deadline); err != nil {
			return nil, "", model.Errorf(op, model.CodeInvalidRequest, "use a duration such as 90s, 4h or 2d", "%v", err)
		}
	} else {
		length = p.EscalationTimeout
	}
	fallback, err := model.ParseFallback(string(r.Fallback))
	if err != nil {
		return nil, "", model.Errorf(op, model.CodeInvalidRequest, "", "%v", err)
	}
	explicit := fallback != ""
	if !explicit {
		fallback = p.EscalationFallback
	}
	if kind == routeRework && fallback == model.FallbackRework {
		if explicit {
			return nil, "", model.Errorf(op, model.CodeInvalidRequest, "choose dismiss, a rule or escalate:ID",
				"a rework's fallback cannot be another rework")
		}
		fallback = ""
	}
	if length <= 0 {
		if explicit {
			return nil, "", model.Errorf(op, model.CodeInvalidRequest, "give a deadline too (e.g. --deadline 4h)",
				"the fallback %s needs a deadline to run out, and the field's policy sets none", fallback)
		}
		return route, note, nil
	}
	if to := fallback.EscalateTo(); to != "" && explicit {
		if err := mustBePerson(tx, op, to, "escalate:ID routes to a person"); err != nil {
			return nil, "", err
		}
	}
	deadline := now.Add(length)
	route.Deadline, route.Fallback = &deadline, fallback
	return route, note, nil
}

// isPerson reports whether id is a registered person.
func isPerson(tx store.Tx, id string) (bool, error) {
	a, err := tx.Agent(id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil && a.Kind == model.KindHuman, err
}

// mustBePerson refuses an id that is not a registered person.
func mustBePerson(tx store.Tx, op, id, why string) error {
	a, err := tx.Agent(id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return model.Errorf(op, model.CodeAgentNotRegistered, "register them first (--kind human), or name another person",
			"%q is not registered; %s", id, why)
	case err != nil:
		return err
	case a.Kind != model.KindHuman:
		return model.Errorf(op, model.CodeInvalidRequest, "name a person (kind human)", "%s is an agent; %s", id, why)
	}
	return nil
}

// routeSentence is what a notification says of a route: "; deadline
// 2026-11-20 17:00 UTC (in 8h), then dismiss".
func routeSentence(r *model.Route, now time.Time) string {
	if r == nil || r.Deadline == nil {
		return ""
	}
	return "; " + r.DescribeDeadline(now)
}
