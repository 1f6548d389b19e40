package review

import (
	"context"
	"fmt"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// Vote casts, or changes, callerID's ballot on a conflict put to a vote.
// When the ballots reach the quorum the majority prevails and the
// conflict resolves with strategy vote, as MERGE would; a tie at quorum
// stays open (policy "stay", more or changed ballots decide) or escalates
// to a human operator (policy "escalate"). Casting a ballot does not
// change the conflict's version: voters do not invalidate each other.
func (s *Service) Vote(ctx context.Context, callerID string, req model.VoteRequest) (model.VoteResponse, error) {
	var resp model.VoteResponse
	if err := validateVote(req); err != nil {
		return resp, err
	}
	if s.offline() {
		return s.voteOffline(ctx, callerID, req)
	}
	err := s.write(ctx, model.OpVote, func(tx store.Tx) (err error) {
		resp, err = s.vote(tx, callerID, req, "")
		return err
	})
	return resp, err
}

func validateVote(req model.VoteRequest) error {
	if strings.TrimSpace(req.Rationale) == "" {
		return model.Errorf(model.OpVote, model.CodeInvalidRequest, "say why in the rationale", "a vote needs a rationale")
	}
	return nil
}

// vote checks a ballot as checkVote does and casts it in tx; messageID is
// as for merge.
func (s *Service) vote(tx store.Tx, callerID string, req model.VoteRequest, messageID string) (model.VoteResponse, error) {
	d, choice, err := s.checkVote(tx, callerID, req)
	if err != nil {
		return model.VoteResponse{}, err
	}
	rationale := strings.TrimSpace(req.Rationale)
	for _, b := range d.Ballots {
		if b.VoterID == d.caller.ID && b.Choice == choice && b.Rationale == rationale {
			return model.VoteResponse{Status: d.Conflict.Status, Conflict: d.Conflict, Tally: d.Tally, Ballots: d.Ballots,
				Unchanged: true, SideEffects: model.SideEffects{SupersededUnits: []string{}, NotifiedAgents: []string{}}}, nil
		}
	}
	return s.cast(tx, d, choice, rationale, messageID)
}

// checkVote applies every rule of a ballot without writing anything: the
// caller is registered and may vote, the conflict exists, is at the version
// the caller saw and is put to a vote, and the choice is one of its units.
// It returns the state the ballot is cast on and the unit chosen.
func (s *Service) checkVote(tx store.Tx, callerID string, req model.VoteRequest) (decision, string, error) {
	const op = model.OpVote
	d, err := s.prepare(tx, op, callerID, req.ConflictID, req.ExpectedVersion)
	if err != nil {
		return d, "", err
	}
	c := d.Conflict
	choice, err := resolveChoice(c, req.Choice)
	if err != nil {
		return d, "", err
	}
	if c.Status != model.StatusPendingVote {
		return d, "", model.Errorf(op, model.CodeInvalidTransition, "re-read the conflict",
			"%s is not open for votes (it %s)", c.ID, describe(c))
	}
	if !d.Policy.MayVote(d.caller) {
		return d, "", model.Errorf(op, model.CodeNotPermitted, "ask an eligible voter",
			"%s may not vote here (needs authority %d%s)", d.caller.ID, d.Policy.VoterMinAuthority, rolesNote(d.Policy))
	}
	if d.Policy.Recused(d.caller, d.ConflictDetail) {
		return d, "", model.Errorf(op, model.CodeNotPermitted, "leave the ballot to voters who did not write either unit",
			"%s wrote one of %s's units and may not vote on it (the field's policy asks authors to recuse themselves)", d.caller.ID, c.ID)
	}
	return d, choice, nil
}

// resolveChoice accepts a unit id of the conflict, or A / B.
func resolveChoice(c model.Conflict, choice string) (string, error) {
	switch strings.ToUpper(strings.TrimSpace(choice)) {
	case "A":
		return c.UnitA, nil
	case "B":
		return c.UnitB, nil
	}
	if _, ok := c.Other(choice); !ok {
		return "", model.Errorf(model.OpVote, model.CodeInvalidRequest, "vote for "+c.UnitA+" or "+c.UnitB,
			"%q is not one of %s's units", choice, c.ID)
	}
	return choice, nil
}

func rolesNote(p model.Policy) string {
	if len(p.VoterRoles) == 0 {
		return ""
	}
	return " and one of the roles " + strings.Join(p.VoterRoles, ", ")
}

func (s *Service) cast(tx store.Tx, d decision, choice, rationale, messageID string) (model.VoteResponse, error) {
	c := d.Conflict
	o := outcome{s: s, tx: tx, d: d, by: d.caller.ID, conflict: c, message: messageID}
	o.epoch, o.err = tx.EpochTick()
	o.now = s.now()
	resp := model.VoteResponse{Status: c.Status}
	for _, b := range d.Ballots {
		if b.VoterID == d.caller.ID {
			resp.Changed = true
		}
	}
	if o.err == nil {
		o.err = tx.BallotPut(model.Ballot{ConflictID: c.ID, VoterID: d.caller.ID, Choice: choice,
			Rationale: rationale, Epoch: o.epoch, CastAt: o.now})
	}
	if o.err == nil {
		resp.Ballots, o.err = tx.Ballots(c.ID)
	}
	resp.Tally = model.Count(c, resp.Ballots, d.Policy.Quorum)
	result, winner := resp.Tally.Decide(c, d.Policy.Tie)
	o.closing = &model.Ballot{ConflictID: c.ID, VoterID: d.caller.ID, Choice: choice, Rationale: rationale}
	tally := fmt.Sprintf("%d–%d at quorum %d", max(resp.Tally.ForA, resp.Tally.ForB), min(resp.Tally.ForA, resp.Tally.ForB), resp.Tally.Quorum)
	switch result {
	case model.VoteWon:
		o.by, o.d.Ballots = d.caller.ID, resp.Ballots
		o.rationale = fmt.Sprintf("Vote closed %s for %s. %s", tally, winner, ballotSummary(c, resp.Ballots))
		o.resolve(model.Vote, winner) // whoever cast a ballot is told with the tally
		resp.Closed = true
	case model.VoteTiedEscalate:
		o.by, o.d.Ballots = d.caller.ID, resp.Ballots
		o.escalate(fmt.Sprintf("The vote tied %d–%d at quorum %d. %s", resp.Tally.ForA, resp.Tally.ForB,
			resp.Tally.Quorum, ballotSummary(c, resp.Ballots)), model.Routing{}, nil)
		resp.Closed = true
	}
	logDecision(&o, model.OpVote, model.BallotLog{ConflictID: c.ID, Choice: choice, Rationale: rationale,
		Changed: resp.Changed, ForA: resp.Tally.ForA, ForB: resp.Tally.ForB})
	if o.err != nil {
		return model.VoteResponse{}, o.err
	}
	resp.Conflict, resp.Status = o.conflict, o.conflict.Status
	resp.SideEffects = model.SideEffects{SupersededUnits: nonNil(o.superseded), NotifiedAgents: nonNil(o.notified)}
	return resp, nil
}

func ballotSummary(c model.Conflict, ballots []model.Ballot) string {
	parts := make([]string, 0, len(ballots))
	for _, b := range ballots {
		parts = append(parts, fmt.Sprintf("%s for %s (%s): %s", b.VoterID, b.Choice, c.Side(b.Choice), oneLine(b.Rationale)))
	}
	return "Ballots: " + strings.Join(parts, "; ") + "."
}
