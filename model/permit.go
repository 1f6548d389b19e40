package model

import "fmt"

// Permit says whether agent a may apply strategy s to the conflict of d
// under its policy: nil if so, otherwise the protocol error MERGE returns.
//
//   - The field's conformance level must offer s (UNSUPPORTED_OPERATION).
//   - detected and resolving conflicts are open to agents; escalated ones
//     only to a human operator (authority 10), and to the person they are
//     routed to where the policy lets owners decide (NOT_PERMITTED,
//     naming who may); so is a conflict that waited for people (escalated
//     or put to a vote) and was sent back for rework; a pending vote only
//     to votes, or, where the policy allows an operator override, to a
//     human operator's decision; a resolved conflict to nobody
//     (INVALID_TRANSITION).
//   - Rework (sending a conflict back to its authors) takes what deciding
//     it takes; it is not a MERGE strategy (review refuses it there).
//   - Under recusal the author of either unit may not decide it
//     (NOT_PERMITTED); asking for people or a vote stays open to them.
//   - At level 3 the authority hierarchy holds: deciding needs a senior
//     agent (6) or above, while asking for a human (human_escalation)
//     needs only a standard agent (4). The authority strategy belongs to
//     the role the field designates for the conflict's type, or a human
//     operator (NOT_PERMITTED).
func Permit(a Agent, d ConflictDetail, s Strategy) *Error {
	const op = OpMerge
	p, c := d.Policy, d.Conflict
	if !s.Valid() && s != Rework {
		return Errorf(op, CodeInvalidRequest, "use one of the strategies `arbiter merge --help` lists", "unknown strategy %q", s)
	}
	if why, ok := p.Refused[s]; ok {
		return Errorf(op, CodeUnsupportedOperation, "choose another strategy", "%s is not offered here: %s", s, why)
	}
	if !p.Allows(s) {
		hint := "choose a strategy of level " + fmt.Sprint(p.Level) + " or below"
		if p.Level < 2 {
			hint = "a level 1 field has no MERGE; raise the field's level to decide conflicts"
		}
		return Errorf(op, CodeUnsupportedOperation, hint,
			"%s needs conformance level %d; this field is at level %d", s, s.Level(), p.Level)
	}
	switch c.Status {
	case StatusResolved:
		return Errorf(op, CodeInvalidTransition, "re-read the conflict", "%s is already resolved", c.ID)
	case StatusPendingVote:
		switch {
		case !p.OperatorOverride || !a.IsHumanOperator():
			return Errorf(op, CodeInvalidTransition, "cast a vote with `arbiter vote`", "%s is put to a vote; only votes settle it now", c.ID)
		case !s.Resolves():
			return Errorf(op, CodeInvalidTransition, "decide it with a strategy that settles it",
				"%s is put to a vote; an operator override must settle it", c.ID)
		}
	case StatusEscalated, StatusResolving:
		if !WaitsForPeople(c) {
			break
		}
		if !a.IsHumanOperator() && !owns(p, a, c) {
			who := "a human operator (authority 10)"
			if r := c.Route; r != nil && r.Owner != "" && p.OwnersDecide {
				who = r.Owner + ", its owner, or " + who
			}
			what := "is escalated"
			if c.Status == StatusResolving {
				what = "was sent back for rework by a person"
			}
			return Errorf(op, CodeNotPermitted, "ask "+who, "%s %s; only %s may decide it", c.ID, what, who)
		}
		if s == HumanEscalation && c.Status == StatusEscalated {
			return Errorf(op, CodeInvalidTransition, "decide it with another strategy", "%s is already escalated", c.ID)
		}
	}
	if a.Authority < AuthorityStandard {
		return Errorf(op, CodeNotPermitted, "", "%s has authority %d and may only read", a.ID, a.Authority)
	}
	if p.Level >= 3 && s != HumanEscalation && a.Authority < AuthoritySenior && !owns(p, a, c) {
		return Errorf(op, CodeNotPermitted, "escalate it with human_escalation instead",
			"deciding a conflict needs authority %d (senior agent); %s has %d", AuthoritySenior, a.ID, a.Authority)
	}
	if s.Resolves() && p.Recused(a, d) {
		return Errorf(op, CodeNotPermitted, "leave it to someone who did not write either unit",
			"%s wrote one of %s's units and may not decide it (the field's policy asks authors to recuse themselves)", a.ID, c.ID)
	}
	if s == Authority && !a.IsHumanOperator() {
		role, ok := p.AuthorityRoles[c.Type]
		if !ok {
			return Errorf(op, CodeNotPermitted, "ask a human operator",
				"no role has authority over %s conflicts in this field; only a human operator may use authority", c.Type)
		}
		if a.Role != role {
			return Errorf(op, CodeNotPermitted, "ask an agent of role "+role,
				"only role %q (or a human operator) decides %s conflicts by authority; %s is %q", role, c.Type, a.ID, a.Role)
		}
	}
	return nil
}

// owns reports whether a answers c as the person it is routed to, where
// the policy lets owners decide.
func owns(p Policy, a Agent, c Conflict) bool {
	return p.OwnersDecide && (c.Status == StatusEscalated || c.Status == StatusResolving) &&
		c.Route != nil && c.Route.Owner != "" && c.Route.Owner == a.ID
}

// WaitsForPeople reports whether only people decide c now: it is
// escalated, or it was escalated or put to a vote and then sent back to
// its authors for rework (a person took it in hand; agents do not decide
// it behind them while the authors revise).
func WaitsForPeople(c Conflict) bool {
	switch c.Status {
	case StatusEscalated:
		return true
	case StatusResolving:
		return c.Rework != nil && (c.Escalation != nil || c.VoteOpened != nil)
	}
	return false
}

// Choice is a strategy offered to a person, and why it is not available
// when it is not.
type Choice struct {
	Strategy Strategy
	Err      *Error
}

// Choices lists every strategy with Permit's verdict for a on d.
func Choices(a Agent, d ConflictDetail) []Choice {
	out := make([]Choice, 0, len(Strategies))
	for _, s := range Strategies {
		out = append(out, Choice{Strategy: s, Err: Permit(a, d, s)})
	}
	return out
}
