package model

import "time"

// Ballot is one voter's current choice on a pending vote.
type Ballot struct {
	ConflictID string    `json:"conflict_id"`
	VoterID    string    `json:"voter_id"`
	Choice     string    `json:"choice"`
	Rationale  string    `json:"rationale"`
	Epoch      int64     `json:"epoch"`
	CastAt     time.Time `json:"cast_at"`
}

// Tally counts the ballots of a vote against its quorum.
type Tally struct {
	ForA   int `json:"for_a"`
	ForB   int `json:"for_b"`
	Quorum int `json:"quorum"`
}

// Total is the number of ballots cast.
func (t Tally) Total() int { return t.ForA + t.ForB }

// Reached reports whether the quorum is met.
func (t Tally) Reached() bool { return t.Quorum > 0 && t.Total() >= t.Quorum }

// Count tallies ballots for conflict c under quorum q; ballots for a unit
// outside the pair are ignored.
func Count(c Conflict, ballots []Ballot, q int) Tally {
	t := Tally{Quorum: q}
	for _, b := range ballots {
		switch b.Choice {
		case c.UnitA:
			t.ForA++
		case c.UnitB:
			t.ForB++
		}
	}
	return t
}

// Outcome is what a tally means for the conflict.
type Outcome int

const (
	// VoteOpen: below quorum, or tied at quorum under TieStay.
	VoteOpen Outcome = iota
	// VoteWon: quorum reached and one side has the majority.
	VoteWon
	// VoteTiedEscalate: quorum reached, tied, and the policy escalates.
	VoteTiedEscalate
)

// Decide says what tally t means under tie rule r, and the winner if any.
func (t Tally) Decide(c Conflict, r TieRule) (Outcome, string) {
	switch {
	case !t.Reached():
		return VoteOpen, ""
	case t.ForA > t.ForB:
		return VoteWon, c.UnitA
	case t.ForB > t.ForA:
		return VoteWon, c.UnitB
	case r == TieEscalate:
		return VoteTiedEscalate, ""
	}
	return VoteOpen, ""
}
