package review

import (
	"context"
	"errors"
	"strings"
	"time"

	"arbiter/internal/decisions"
	"arbiter/model"
	"arbiter/store"

	"github.com/oklog/ulid/v2"
)

// WithDecisionsOut makes decisions on a read-only field go to the
// decisions file at path instead of failing with READ_ONLY: Merge and Vote
// check the decision against the field with the rules they apply live,
// then append it to the file as an Akashik MERGE message (one JSON line,
// fsynced) for `arbiter apply` to replay on the live field later. On a
// writable field the file is not used. An empty path turns this off.
func (s *Service) WithDecisionsOut(path string) *Service {
	s.decisionsOut = path
	return s
}

// Offline returns the decisions file decisions go to, when they do: the
// field is read-only and a decisions file was given.
func (s *Service) Offline() (string, bool) {
	if !s.offline() {
		return "", false
	}
	return s.decisionsOut, true
}

func (s *Service) offline() bool { return s.decisionsOut != "" && s.st.ReadOnly() }

// mergeOffline checks a validated MERGE in a read transaction and appends
// it to the decisions file, with the version of the conflict it was
// decided on. A deterministic strategy's winner is written out, so that
// the decision applies only if the rule still picks the same unit.
func (s *Service) mergeOffline(ctx context.Context, callerID string, req model.MergeRequest) (model.MergeResponse, error) {
	var resp model.MergeResponse
	var seen int64
	err := s.st.Read(ctx, func(tx store.Tx) error {
		d, winner, err := s.checkMerge(tx, callerID, req)
		if err != nil {
			return err
		}
		agents, err := tx.Agents()
		if err != nil {
			return err
		}
		if seen, err = tx.Epoch(); err != nil {
			return err
		}
		f := model.Foresee(d.ConflictDetail, agents, req.Strategy, winner)
		req.ExpectedVersion = d.Conflict.Version
		if winner != "" {
			req.Resolution.WinnerID = &winner
		}
		c := d.Conflict
		c.Status = f.Status
		resp = model.MergeResponse{Status: f.Status, Conflict: c, SideEffects: model.SideEffects{
			SupersededUnits: nonNil(f.Superseded), NotifiedAgents: nonNil(f.Notified)}}
		return nil
	})
	if err != nil {
		return model.MergeResponse{}, err
	}
	rec, err := s.recordOffline(callerID, seen, req)
	if err != nil {
		return model.MergeResponse{}, err
	}
	resp.Offline = &rec
	return resp, nil
}

// voteOffline checks a ballot in a read transaction and appends it to the
// decisions file as a MERGE with strategy vote and the choice as
// winner_id. The response tallies the ballots as they would stand.
func (s *Service) voteOffline(ctx context.Context, callerID string, req model.VoteRequest) (model.VoteResponse, error) {
	var resp model.VoteResponse
	var seen int64
	err := s.st.Read(ctx, func(tx store.Tx) error {
		d, choice, err := s.checkVote(tx, callerID, req)
		if err != nil {
			return err
		}
		if seen, err = tx.Epoch(); err != nil {
			return err
		}
		req.Choice, req.ExpectedVersion = choice, d.Conflict.Version
		resp = foreseeVote(d, choice, s.now())
		return nil
	})
	if err != nil {
		return model.VoteResponse{}, err
	}
	rec, err := s.recordOffline(callerID, seen, model.VoteAsMerge(req))
	if err != nil {
		return model.VoteResponse{}, err
	}
	resp.Offline = &rec
	return resp, nil
}

// foreseeVote says what d's vote would look like with the caller's ballot
// for choice: the tally, and whether it closes the vote and how.
func foreseeVote(d decision, choice string, now time.Time) model.VoteResponse {
	c := d.Conflict
	resp := model.VoteResponse{Status: c.Status}
	var ballots []model.Ballot
	for _, b := range d.Ballots {
		if b.VoterID == d.caller.ID {
			resp.Changed = true
			continue
		}
		ballots = append(ballots, b)
	}
	resp.Ballots = append(ballots, model.Ballot{ConflictID: c.ID, VoterID: d.caller.ID, Choice: choice, CastAt: now})
	resp.Tally = model.Count(c, resp.Ballots, d.Policy.Quorum)
	resp.SideEffects = model.SideEffects{SupersededUnits: []string{}, NotifiedAgents: []string{}}
	switch result, winner := resp.Tally.Decide(c, d.Policy.Tie); result {
	case model.VoteWon:
		loser, _ := c.Other(winner)
		resp.Status, resp.Closed = model.StatusResolved, true
		resp.SideEffects.SupersededUnits = []string{loser}
	case model.VoteTiedEscalate:
		resp.Status, resp.Closed = model.StatusEscalated, true
	}
	c.Status = resp.Status
	resp.Conflict = c
	return resp
}

// recordOffline appends req as a MERGE message from callerID to the
// decisions file. Its epoch follows the Lamport rule for a message sent
// by someone who has seen the field at epoch seen and the file's earlier
// messages: one more than the latest of them.
func (s *Service) recordOffline(callerID string, seen int64, req model.MergeRequest) (model.OfflineRecord, error) {
	id := ulid.MustNew(ulid.Timestamp(s.now()), ulid.DefaultEntropy()).String()
	env, err := model.NewEnvelope(id, model.OpMerge, callerID, 0, req)
	if err != nil {
		return model.OfflineRecord{}, err
	}
	epoch, err := decisions.Append(s.decisionsOut, env, seen)
	var taken *decisions.Taken
	if errors.As(err, &taken) {
		op := model.OpMerge
		if _, ok := req.Ballot(); ok {
			op = model.OpVote
		}
		return model.OfflineRecord{}, model.Errorf(op, model.CodeInvalidTransition,
			"edit the decisions file to drop that line first, or leave this one be",
			"%s is already decided in %s on line %d (message %s by %s); a second decision would be refused when applied",
			req.ConflictID, taken.Path, taken.Line, taken.Earlier.ID, taken.Earlier.AgentID)
	}
	if err != nil {
		return model.OfflineRecord{}, err
	}
	return model.OfflineRecord{File: s.decisionsOut, MessageID: id, Epoch: epoch}, nil
}

// OfflineDecided lists the conflicts the decisions file already decides
// (none when decisions go to the field), each with a few words on how
// ("dismiss by ops-maya"), so that a screen can mark them.
func (s *Service) OfflineDecided() (map[string]string, error) {
	out := map[string]string{}
	if !s.offline() {
		return out, nil
	}
	decided, err := decisions.Decided(s.decisionsOut)
	if err != nil {
		return nil, err
	}
	for id, msgs := range decided {
		var parts []string
		for _, m := range msgs {
			what := string(m.Request.Strategy)
			if b, ok := m.Request.Ballot(); ok {
				what = "a vote for " + b.Choice
			}
			parts = append(parts, what+" by "+m.Envelope.AgentID)
		}
		out[id] = strings.Join(parts, "; ")
	}
	return out, nil
}
