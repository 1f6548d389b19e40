package model

import (
	"cmp"
	"slices"
)

// sortStats puts each figure in the order the screen and the JSON show
// it: open conflicts by status then type, decision times by dimension
// then the most decisions first, days oldest first, pairs and losses most
// first, owners by open escalations.
func sortStats(s *Stats) {
	slices.SortFunc(s.Open, func(a, b OpenCount) int {
		return cmp.Or(cmp.Compare(a.Status, b.Status), cmp.Compare(a.Type, b.Type))
	})
	dims := map[string]int{"type": 0, "strategy": 1, "person": 2}
	slices.SortFunc(s.DecisionTime, func(a, b DecisionTime) int {
		return cmp.Or(cmp.Compare(dims[a.Dimension], dims[b.Dimension]), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key))
	})
	slices.SortFunc(s.Days, func(a, b DayCount) int { return cmp.Compare(a.Day, b.Day) })
	slices.SortFunc(s.Pairs, func(a, b PairCount) int {
		return cmp.Or(cmp.Compare(b.Conflicts, a.Conflicts), cmp.Compare(a.AgentA, b.AgentA), cmp.Compare(a.AgentB, b.AgentB))
	})
	slices.SortFunc(s.Outcomes, func(a, b AgentOutcome) int {
		return cmp.Or(cmp.Compare(b.Lost, a.Lost), cmp.Compare(b.Won, a.Won), cmp.Compare(a.Agent, b.Agent))
	})
	slices.SortFunc(s.Owners, func(a, b OwnerLoad) int {
		return cmp.Or(cmp.Compare(b.Open, a.Open), cmp.Compare(a.Owner, b.Owner))
	})
	slices.SortFunc(s.Voters, func(a, b VoterTally) int { return cmp.Compare(a.Voter, b.Voter) })
	slices.SortFunc(s.Fallbacks, func(a, b FallbackCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Strategy, b.Strategy))
	})
}
