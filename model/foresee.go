package model

import "slices"

// Foresight is what a decision will change, told before it is made.
type Foresight struct {
	Status     ConflictStatus
	Superseded []string
	NewUnit    bool
	Notified   []string
}

// Foresee says what applying strategy s (with winner, where one is
// needed) to the conflict in d will change, given the field's agents. It
// follows the same rules as the field, by what s does (its Effect): the
// loser, or both originals for synthesis, become superseded; everyone concerned is notified
// (Concerned): the authors, the owner, the escalating and proposing
// agents, and the human operators on an escalation to nobody in
// particular or the eligible voters when a vote opens or closes.
func Foresee(d ConflictDetail, agents []Agent, s Strategy, winner string) Foresight {
	c := d.Conflict
	f := Foresight{Status: StatusResolved}
	after := c
	after.Route = nil
	ch := Change{Event: EventConflictResolved, Before: c, Authors: []string{d.A.Unit.Source.AgentID, d.B.Unit.Source.AgentID},
		Ballots: d.Ballots}
	switch s.Row().Effect {
	case ToPeople:
		f.Status, ch.Event = StatusEscalated, EventConflictEscalated
		if o := d.Policy.Owners[c.Type]; o != "" {
			after.Route = &Route{Owner: o}
		}
	case ToVote:
		f.Status, ch.Event = StatusPendingVote, EventVoteOpened
	case NewUnit:
		f.Superseded, f.NewUnit = []string{c.UnitA, c.UnitB}, true
	case KeepWinner:
		if loser, ok := c.Other(winner); ok {
			f.Superseded = []string{loser}
		}
	}
	after.Status = f.Status
	ch.After = after
	for _, a := range agents {
		if a.IsHumanOperator() {
			ch.Operators = append(ch.Operators, a.ID)
		}
		if d.Policy.MayVote(a) && !d.Policy.Recused(a, d) {
			ch.Voters = append(ch.Voters, a.ID)
		}
	}
	notify := Concerned(ch)
	// Only agents of the field get notifications (a foreign memory file
	// has nobody to tell).
	notify = slices.DeleteFunc(notify, func(id string) bool {
		return !slices.ContainsFunc(agents, func(a Agent) bool { return a.ID == id })
	})
	f.Notified = uniqueSorted(notify)
	return f
}

// uniqueSorted is ids without blanks and repeats, in order.
func uniqueSorted(ids []string) []string {
	out := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
