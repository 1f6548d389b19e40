package review

import (
	"context"

	"arbiter/internal/decisions"
	"arbiter/model"
	"arbiter/store"
)

// ApplyDecision applies one offline decision to the field, as its agent,
// in one transaction: the message's epoch is witnessed (the Lamport
// receive rule), then the decision goes through Merge's or Vote's rules
// with the conflict version it was made on, so that one whose conflict
// changed since is refused with INVALID_TRANSITION. The MERGE or VOTE
// event it writes keeps the message id: a message applied before is
// reported as AlreadyApplied and changes nothing. A refused decision
// changes nothing either, the clock included.
func (s *Service) ApplyDecision(ctx context.Context, env model.Envelope) (model.ApplyResult, error) {
	res := model.ApplyResult{MessageID: env.ID, AgentID: env.AgentID}
	req, err := decisions.Decode(env)
	if err != nil {
		return res, model.Errorf(model.OpMerge, model.CodeInvalidRequest, "", "message %s: %v", env.ID, err)
	}
	res.ConflictID = req.ConflictID
	op := model.OpMerge
	ballot, isBallot := req.Ballot()
	if isBallot {
		op, err = model.OpVote, validateVote(ballot)
	} else {
		err = validateMerge(req)
	}
	if err != nil {
		return res, err
	}
	err = s.write(ctx, op, func(tx store.Tx) error {
		done, err := tx.MessageApplied(req.ConflictID, env.ID)
		if err != nil || done {
			res.AlreadyApplied = done
			return err
		}
		if _, err := tx.EpochWitness(env.Epoch); err != nil {
			return err
		}
		if isBallot {
			v, err := s.vote(tx, env.AgentID, ballot, env.ID)
			res.Vote = &v
			return err
		}
		m, err := s.merge(tx, env.AgentID, req, env.ID)
		res.Merge = &m
		return err
	})
	if err != nil {
		res.Merge, res.Vote = nil, nil
	}
	return res, err
}
