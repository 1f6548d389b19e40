package model

import "testing"

func TestTallyCountsBallotsForEitherUnitAndDecides(t *testing.T) {
	c := Conflict{ID: "c1", UnitA: "mem-1", UnitB: "mem-2"}
	ballots := func(choices ...string) []Ballot {
		var out []Ballot
		for _, ch := range choices {
			out = append(out, Ballot{Choice: ch})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		choices []string
		quorum  int
		tie     TieRule
		outcome Outcome
		winner  string
	}{
		{"below quorum stays open", []string{"mem-1", "mem-1"}, 3, TieEscalate, VoteOpen, ""},
		{"a majority at quorum wins", []string{"mem-1", "mem-2", "mem-2"}, 3, TieEscalate, VoteWon, "mem-2"},
		{"more ballots than quorum still decide", []string{"mem-1", "mem-1", "mem-1", "mem-2"}, 3, TieStay, VoteWon, "mem-1"},
		{"a tie escalates under escalate", []string{"mem-1", "mem-2"}, 2, TieEscalate, VoteTiedEscalate, ""},
		{"a tie stays open under stay", []string{"mem-1", "mem-2"}, 2, TieStay, VoteOpen, ""},
		{"a ballot for another unit is ignored", []string{"mem-1", "mem-9", "mem-1"}, 3, TieEscalate, VoteOpen, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tally := Count(c, ballots(tc.choices...), tc.quorum)
			o, w := tally.Decide(c, tc.tie)
			if o != tc.outcome || w != tc.winner {
				t.Errorf("tally %+v decides %v %q, want %v %q", tally, o, w, tc.outcome, tc.winner)
			}
		})
	}
	if (Tally{}).Reached() {
		t.Error("a tally without a quorum is never reached")
	}
}
