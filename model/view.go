package model

import "time"

// ConflictSummary is one row of a conflict list: the conflict and who is
// on each side, and for a vote its tally.
type ConflictSummary struct {
	Conflict
	AgentA string `json:"agent_a"`
	RoleA  string `json:"role_a"`
	AgentB string `json:"agent_b"`
	RoleB  string `json:"role_b"`
	Tally  *Tally `json:"tally,omitempty"`
}

// Sort orders a conflict list.
type Sort string

const (
	SortAge  Sort = "age"  // oldest first
	SortType Sort = "type" // by type, then oldest first
)

// ListQuery selects a page of conflicts.
type ListQuery struct {
	Statuses []ConflictStatus
	Sort     Sort
	// Search keeps the conflicts that match every word of it: a word
	// is part of the conflict's id, status, type, units' ids, authors or
	// description (case-insensitive), or begins a word of its
	// description or either unit's text.
	Search string
	Limit  int
	Offset int
	// For orders the review queue for one person, when set: first what
	// is their turn (TurnOf) and routed to them, then what is their
	// turn and running out of time, then the rest of their turn, then
	// everyone else's, running out of time first; oldest first within
	// each.
	For *Viewer
	// Mine keeps only what is For's turn.
	Mine bool
}

// Viewer is the person a queue is ordered for: what the store needs to
// know to tell, row by row, whether it is their turn.
type Viewer struct {
	ID string
	// Operator: a human operator (decides escalations).
	Operator bool
	// Voter: the policy lets them vote.
	Voter bool
	// OwnersDecide, Recusal and Override are the policy's.
	OwnersDecide, Recusal, Override bool
	// Now is the time urgency is measured at.
	Now time.Time
}

// ViewerOf is a for the policy p at now.
func ViewerOf(p Policy, a Agent, now time.Time) *Viewer {
	return &Viewer{ID: a.ID, Operator: a.IsHumanOperator() && p.Level >= 2, Voter: p.Allows(Vote) && p.MayVote(a),
		OwnersDecide: p.OwnersDecide, Recusal: p.Recusal, Override: p.OperatorOverride, Now: now}
}

// ReviewStatuses are the statuses that wait for people.
var ReviewStatuses = []ConflictStatus{StatusEscalated, StatusPendingVote}

// Side is one unit of a conflict with what the rules need to know of it.
type Side struct {
	Unit       Unit     `json:"unit"`
	Agent      *Agent   `json:"agent,omitempty"`
	Supporters []string `json:"supporters"`
}

// Contender returns the side as the deterministic rules see it.
func (s Side) Contender() Contender { return Contender{Unit: s.Unit, Support: len(s.Supporters)} }

// ConflictDetail is everything known about one conflict.
type ConflictDetail struct {
	Conflict      Conflict       `json:"conflict"`
	A             Side           `json:"unit_a"`
	B             Side           `json:"unit_b"`
	Ballots       []Ballot       `json:"votes"`
	Tally         Tally          `json:"tally"`
	Picks         []Pick         `json:"rule_picks"`
	Events        []Event        `json:"events"`
	Notifications []Notification `json:"notifications"`
	Policy        Policy         `json:"policy"`
	// Ancestor is the earlier unit both sides revise, if any.
	Ancestor *Ancestor `json:"ancestor,omitempty"`
}

// Link is a relation another unit carries to this one.
type Link struct {
	From        string       `json:"from"`
	Type        RelationType `json:"type"`
	Description string       `json:"description,omitempty"`
}

// UnitDetail is everything known about one unit: the unit with the
// relations it carries, its author, the relations other units carry to
// it, and the conflicts it is part of.
type UnitDetail struct {
	Unit      Unit       `json:"unit"`
	Agent     *Agent     `json:"agent,omitempty"`
	Incoming  []Link     `json:"incoming"`
	Conflicts []Conflict `json:"conflicts"`
	// Provenance is where a join brought the unit from, if it did.
	Provenance *Provenance `json:"provenance,omitempty"`
}
