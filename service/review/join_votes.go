package review

import (
	"slices"
	"strings"

	"arbiter/model"
)

// bringVotes casts here, by the vote's own rules, the ballots the fork's
// voters cast since the last join (or the fork) on votes both fields
// hold, still open in both: each as that voter's VOTE, so a ballot that
// reaches the quorum closes the vote here as it would have. A voter who
// has a ballot here already keeps it; a ballot the rules refuse here (the
// vote is decided or escalated here, the voter may not vote here) is left.
// Both are counted as ballots left.
func (j *joiner) bringVotes() error {
	var ballots []model.Ballot
	err := j.ftx.BallotEach(func(b model.Ballot) error {
		if b.Epoch > j.since {
			ballots = append(ballots, b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range ballots {
		if _, brought := j.conflicts[b.ConflictID]; brought {
			continue // it came with its conflict
		}
		theirs, err := j.ftx.Conflict(b.ConflictID)
		if err != nil {
			return err
		}
		if theirs.Status != model.StatusPendingVote {
			continue // decided in the fork: decided compares the decisions
		}
		here, known, err := j.conflictHere(theirs)
		if err != nil {
			return err
		}
		if !known {
			continue
		}
		if cast, err := j.castHere(here, b); err != nil {
			return err
		} else if cast {
			j.rep.BallotsCast++
		} else {
			j.rep.BallotsLeft++
		}
	}
	return j.actAgain()
}

// castHere casts the fork's ballot b on conflict here, if the voter has
// none here and the rules take it.
func (j *joiner) castHere(here string, b model.Ballot) (bool, error) {
	mine, err := j.tx.Ballots(here)
	if err != nil {
		return false, err
	}
	if slices.ContainsFunc(mine, func(m model.Ballot) bool { return m.VoterID == b.VoterID }) {
		return false, nil
	}
	choice, _, err := j.unitHere(b.Choice)
	if err != nil {
		return false, err
	}
	// Checked first, writing nothing: a refusal leaves the ballot.
	req := model.VoteRequest{ConflictID: here, Choice: choice, Rationale: b.Rationale}
	d, choice, err := j.s.checkVote(j.tx, b.VoterID, req)
	if _, refused := model.AsError(err); refused || strings.TrimSpace(b.Rationale) == "" {
		return false, nil
	} else if err != nil {
		return false, err
	}
	_, err = j.s.cast(j.tx, d, choice, strings.TrimSpace(b.Rationale), "")
	return err == nil, err
}
