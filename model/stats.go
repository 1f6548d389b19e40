package model

import (
	"slices"
	"time"
)

// StatsQuery asks for a field's figures: the open conflicts as they are
// at Now, and what happened from Since on.
type StatsQuery struct {
	Since time.Time
	Now   time.Time
	// Voters are the agents the policy lets vote, whose ballots cast and
	// missed are counted; with Recusal, a voter who wrote one of a vote's
	// units could not vote on it, and did not miss it.
	Voters  []string
	Recusal bool
	// People, when not nil, are the field's people: time to decision by
	// person lists them only, not agents, and not "vote".
	People []string
}

// Stats are a field's figures, aggregated by the engine.
type Stats struct {
	Since time.Time `json:"since"`
	Now   time.Time `json:"now"`
	// Open counts the conflicts not resolved, by status and type, with
	// their ages.
	Open []OpenCount `json:"open"`
	// DecisionTime is how long conflicts resolved since Since took from
	// detection to resolution, by type, by strategy and by who decided.
	DecisionTime []DecisionTime `json:"decision_time"`
	// Days counts, for each day from Since on (UTC), the conflicts
	// opened and those decided.
	Days []DayCount `json:"days"`
	// Pairs are the pairs of agents whose units collided most since
	// Since, most first (at most 10).
	Pairs []PairCount `json:"pairs"`
	// Outcomes are, for each agent whose unit a decision since Since
	// kept or dropped, how many it won and lost; most lost first.
	Outcomes []AgentOutcome `json:"outcomes"`
	// Owners are each owner's open escalations and how many of them are
	// overdue ("" is any human operator).
	Owners []OwnerLoad `json:"owners"`
	// Voters are each voter's ballots cast since Since, and the votes
	// opened since Since and closed that they could cast one on (not
	// recused) and did not.
	Voters []VoterTally `json:"voters"`
	// Fallbacks count what deadlines executed since Since, by strategy
	// ("rework" for a conflict sent back).
	Fallbacks []FallbackCount `json:"fallbacks"`
}

// OpenCount is the open conflicts of one status and type.
type OpenCount struct {
	Status ConflictStatus `json:"status"`
	Type   ConflictType   `json:"type"`
	Count  int            `json:"count"`
	// Ages: under an hour, under a day, under a week, a week or more.
	UnderHour int `json:"under_hour"`
	UnderDay  int `json:"under_day"`
	UnderWeek int `json:"under_week"`
	Older     int `json:"older"`
}

// DecisionTime is the time to decision of one group: Dimension is
// "type", "strategy" or "person"; Key the group's type, strategy or
// person (as the engine counts them, "vote" for conflicts a vote closed;
// StatsQuery.People keeps the people only). P50 and P90 are nearest
// ranks, in milliseconds.
type DecisionTime struct {
	Dimension string `json:"dimension"`
	Key       string `json:"key"`
	Count     int    `json:"count"`
	P50MS     int64  `json:"p50_ms"`
	P90MS     int64  `json:"p90_ms"`
}

// DayCount is one day's conflicts opened and decided.
type DayCount struct {
	Day     string `json:"day"` // YYYY-MM-DD, UTC
	Opened  int    `json:"opened"`
	Decided int    `json:"decided"`
}

// PairCount is how often two agents' units collided (A before B).
type PairCount struct {
	AgentA    string `json:"agent_a"`
	AgentB    string `json:"agent_b"`
	Conflicts int    `json:"conflicts"`
}

// AgentOutcome is how an agent's units fared in decisions.
type AgentOutcome struct {
	Agent string `json:"agent"`
	Won   int    `json:"won"`
	Lost  int    `json:"lost"`
}

// OwnerLoad is an owner's open escalations.
type OwnerLoad struct {
	Owner   string `json:"owner"`
	Open    int    `json:"open"`
	Overdue int    `json:"overdue"`
}

// VoterTally is a voter's ballots.
type VoterTally struct {
	Voter  string `json:"voter"`
	Cast   int    `json:"cast"`
	Missed int    `json:"missed"`
}

// FallbackCount is how many times deadlines executed one strategy.
type FallbackCount struct {
	Strategy string `json:"strategy"`
	Count    int    `json:"count"`
}

// StatsRow is one aggregated row as an engine returns it: which figure
// (Kind), its keys and its numbers. StatsOf puts them together.
type StatsRow struct {
	Kind, K1, K2  string
	A, B, C, D, E int64
}

// StatsOf assembles the engine's rows into Stats, in a stable order.
func StatsOf(q StatsQuery, rows []StatsRow) Stats {
	s := Stats{Since: q.Since.UTC(), Now: q.Now.UTC(), Open: []OpenCount{}, DecisionTime: []DecisionTime{}, Days: []DayCount{},
		Pairs: []PairCount{}, Outcomes: []AgentOutcome{}, Owners: []OwnerLoad{}, Voters: []VoterTally{}, Fallbacks: []FallbackCount{}}
	days := map[string]*DayCount{}
	day := func(d string) *DayCount {
		if days[d] == nil {
			days[d] = &DayCount{Day: d}
		}
		return days[d]
	}
	cast, votedOn, authored := map[string]int{}, map[string]int{}, map[string]int{}
	closed := 0
	for _, r := range rows {
		switch r.Kind {
		case "open":
			s.Open = append(s.Open, OpenCount{Status: ConflictStatus(r.K1), Type: ConflictType(r.K2), Count: int(r.A),
				UnderHour: int(r.B), UnderDay: int(r.C), UnderWeek: int(r.D), Older: int(r.E)})
		case "time":
			if r.K1 == "person" && q.People != nil && !slices.Contains(q.People, r.K2) {
				continue
			}
			s.DecisionTime = append(s.DecisionTime, DecisionTime{Dimension: r.K1, Key: r.K2, Count: int(r.A), P50MS: r.B, P90MS: r.C})
		case "opened":
			day(r.K1).Opened = int(r.A)
		case "decided":
			day(r.K1).Decided = int(r.A)
		case "pair":
			s.Pairs = append(s.Pairs, PairCount{AgentA: r.K1, AgentB: r.K2, Conflicts: int(r.A)})
		case "outcome":
			s.Outcomes = append(s.Outcomes, AgentOutcome{Agent: r.K1, Won: int(r.A), Lost: int(r.B)})
		case "owner":
			s.Owners = append(s.Owners, OwnerLoad{Owner: r.K1, Open: int(r.A), Overdue: int(r.B)})
		case "fallback":
			s.Fallbacks = append(s.Fallbacks, FallbackCount{Strategy: r.K1, Count: int(r.A)})
		case "votes_closed":
			closed = int(r.A)
		case "authored":
			authored[r.K1] = int(r.A)
		case "cast":
			cast[r.K1] = int(r.A)
		case "voted_on":
			votedOn[r.K1] = int(r.A)
		}
	}
	for _, v := range q.Voters {
		could := closed
		if q.Recusal {
			could -= authored[v]
		}
		s.Voters = append(s.Voters, VoterTally{Voter: v, Cast: cast[v], Missed: max(0, could-votedOn[v])})
	}
	// Every day from Since to Now, those with nothing too.
	if !q.Since.IsZero() {
		for d := q.Since.UTC().Truncate(24 * time.Hour); !d.After(q.Now.UTC()); d = d.Add(24 * time.Hour) {
			day(d.Format("2006-01-02"))
		}
	}
	for _, d := range days {
		s.Days = append(s.Days, *d)
	}
	sortStats(&s)
	return s
}
