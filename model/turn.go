package model

import (
	"fmt"
	"strings"
)

// Turn is what a person can do about a conflict waiting in the queue.
type Turn int

const (
	// TurnNone: nothing; someone else's turn (WhoActs says whose).
	TurnNone Turn = iota
	// TurnDecide: settle it with a strategy.
	TurnDecide
	// TurnVote: cast a ballot (one not cast yet).
	TurnVote
)

// TurnOf says what a can do about the conflict of row s under p: decide an
// escalation (a human operator), vote on a pending vote (an eligible
// voter who has not voted, voted false), or close a vote by an operator
// override; decide a detected one (as Permit allows); nothing for a
// resolved one, or when recusal keeps a off it.
func TurnOf(p Policy, a Agent, s ConflictSummary, voted bool) Turn {
	recused := p.RecusedFrom(a, s.AgentA, s.AgentB)
	if WaitsForPeople(s.Conflict) {
		if (a.IsHumanOperator() || owns(p, a, s.Conflict)) && p.Level >= 2 && !recused {
			return TurnDecide
		}
		return TurnNone
	}
	switch s.Status {
	case StatusPendingVote:
		switch {
		case p.MayVote(a) && !recused && !voted:
			return TurnVote
		case p.OperatorOverride && a.IsHumanOperator() && !recused:
			return TurnDecide
		}
	case StatusDetected, StatusResolving:
		if CapabilitiesOf(p, a).Decide && !recused {
			return TurnDecide
		}
	}
	return TurnNone
}

// WhoActs names who can act on the conflict of row s, for a person whose
// turn it is not: "a human operator (ops-maya)", "ops-maya (its owner)",
// "the eligible voters (lead-priya, lead-tomas)". agents are the field's.
func WhoActs(p Policy, agents []Agent, s ConflictSummary) string {
	if s.Status == StatusResolved {
		return "nobody: it is resolved"
	}
	var ids []string
	owner, ownerActs := "", false
	if WaitsForPeople(s.Conflict) && s.Route != nil {
		owner = s.Route.Owner
	}
	for _, a := range agents {
		switch {
		case TurnOf(p, a, s, false) == TurnNone:
		case a.ID == owner:
			ownerActs = true
		default:
			ids = append(ids, a.ID)
		}
	}
	var who string
	switch {
	case WaitsForPeople(s.Conflict):
		who = "a human operator"
	case s.Status == StatusPendingVote:
		who = "the eligible voters"
	default:
		who = "a senior agent"
	}
	switch {
	case ownerActs && len(ids) == 0:
		return owner + " (its owner)"
	case ownerActs:
		return fmt.Sprintf("%s (its owner) or %s (%s)", owner, who, strings.Join(ids, ", "))
	case len(ids) == 0:
		return "nobody registered can (" + who + " would)"
	}
	return fmt.Sprintf("%s (%s)", who, strings.Join(ids, ", "))
}
