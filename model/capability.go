package model

import "slices"

// Capabilities is what an agent may do in a field, by its policy: the
// rules of Permit and MayVote, said once per agent.
type Capabilities struct {
	// Record: record units (and escalate open conflicts to people).
	Record bool `json:"record"`
	// Decide: settle detected conflicts with a strategy.
	Decide bool `json:"decide"`
	// DecideEscalated: settle conflicts escalated to people.
	DecideEscalated bool `json:"decide_escalated"`
	// Vote: cast ballots on conflicts put to a vote.
	Vote bool `json:"vote"`
	// AuthorityOver lists the conflict types the agent decides by
	// authority (every type, for a human operator).
	AuthorityOver []ConflictType `json:"authority_over"`
	// Owns lists the conflict types whose escalations the policy routes
	// to this agent (who decides them where the policy lets owners
	// decide).
	Owns []ConflictType `json:"owns"`
	// DecideOwned: decide what is routed to them (the policy lets owners
	// decide).
	DecideOwned bool `json:"decide_owned"`
}

// CapabilitiesOf says what a may do under p.
func CapabilitiesOf(p Policy, a Agent) Capabilities {
	c := Capabilities{Record: a.CanWrite(), AuthorityOver: []ConflictType{}, Owns: []ConflictType{}}
	for _, t := range ConflictTypes {
		if id, ok := p.Owners[t]; ok && id == a.ID {
			c.Owns = append(c.Owns, t)
		}
	}
	c.DecideOwned = p.OwnersDecide && p.Level >= 2
	c.Decide = p.Level >= 2 && a.CanWrite() && (p.Level < 3 || a.Authority >= AuthoritySenior)
	c.DecideEscalated = p.Level >= 2 && a.IsHumanOperator()
	c.Vote = p.Allows(Vote) && p.MayVote(a)
	if p.Allows(Authority) && c.Decide {
		for _, t := range ConflictTypes {
			if a.IsHumanOperator() || p.AuthorityRoles[t] == a.Role {
				c.AuthorityOver = append(c.AuthorityOver, t)
			}
		}
	}
	slices.Sort(c.AuthorityOver)
	return c
}
