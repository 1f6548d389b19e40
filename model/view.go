package model

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
}
