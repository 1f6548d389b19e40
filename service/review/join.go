package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// JoinOptions say how to join a fork.
type JoinOptions struct {
	// DryRun works the join out and writes nothing.
	DryRun bool
	// BaseEpoch, when not negative, is the epoch the two fields diverged
	// at, for a fork that is not known as this field's (a copy made
	// another way); it takes the place of the fork's record.
	BaseEpoch int64
}

// errDryRun rolls back a dry run's transaction.
var errDryRun = errors.New("a dry run writes nothing")

// Join brings into the field what happened in fork since it was forked
// from it (or since it was last joined), as one transaction, acting as
// callerID, a human operator; docs/fork-join.md has the rules. The fork
// is only read. With DryRun the report says what the join would do and
// nothing is written.
func (s *Service) Join(ctx context.Context, callerID string, fork store.Field, opt JoinOptions) (model.JoinReport, error) {
	var rep model.JoinReport
	err := fork.Read(ctx, func(ftx store.Tx) error {
		return s.write(ctx, model.OpJoin, func(tx store.Tx) error {
			j, err := s.startJoin(tx, ftx, callerID, fork.Name(), opt)
			if err != nil {
				return err
			}
			if !j.rep.Nothing {
				err = j.run()
			}
			rep = *j.rep
			if err == nil && opt.DryRun {
				err = errDryRun
			}
			return err
		})
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	return rep, err
}

// joiner is one join under way: the field's transaction (tx), the fork's
// (ftx), and what the join has made of the fork's ids.
type joiner struct {
	s       *Service
	tx, ftx store.Tx
	by      model.Agent
	uid     string // the fork's identity
	name    string // the fork's name
	base    int64  // the epoch the two diverged at
	since   int64  // the fork's clock the last join took up to, or base
	epoch   int64  // the join's epoch here
	now     time.Time
	link    model.FieldLink // the field's link to the fork, as it will be stored
	rep     *model.JoinReport
	dry     bool

	units     map[string]string // fork unit id → id here
	fresh     map[string]bool   // ids here of the units this join added
	forkIDs   map[string]string // id here → fork unit id, for the units this join added
	reserved  map[string]bool   // the fork's unit ids this join keeps
	conflicts map[string]string // fork conflict id → id here
	revisions []bothRevised
}

// bothRevised is a unit from before the fork that both sides revised:
// base, the revision here and the fork's (there, its id here; forkID, its
// id in the fork).
type bothRevised struct {
	base, here, there, forkID string
}

// startJoin works out which fork this is, where the two diverged and
// what is new, and checks the caller.
func (s *Service) startJoin(tx, ftx store.Tx, callerID, forkName string, opt JoinOptions) (*joiner, error) {
	const op = model.OpJoin
	by, err := caller(tx, op, callerID)
	if err != nil {
		return nil, err
	}
	if !by.IsHumanOperator() {
		return nil, model.Errorf(op, model.CodeNotPermitted, "ask a human operator",
			"only a human operator (authority 10) joins a fork; %s has %d", by.ID, by.Authority)
	}
	self, origin, err := links(tx)
	if err != nil {
		return nil, err
	}
	fself, forigin, err := links(ftx)
	if err != nil {
		return nil, err
	}
	j := &joiner{s: s, tx: tx, ftx: ftx, by: by, uid: fself.UID, name: forkName, dry: opt.DryRun,
		units: map[string]string{}, fresh: map[string]bool{}, forkIDs: map[string]string{}, conflicts: map[string]string{}}
	if j.uid == "" {
		j.uid = "unlinked:" + forkName
	}
	switch {
	case fself.UID != "" && fself.UID == self.UID:
		return nil, model.Errorf(op, model.CodeInvalidRequest, "name a fork of the field", "%s is this field itself, not a fork of it", forkName)
	case opt.BaseEpoch >= 0:
		j.base = opt.BaseEpoch
	case self.UID != "" && forigin.UID == self.UID:
		j.base = forigin.BaseEpoch
	case origin.UID != "" && origin.UID == fself.UID:
		j.base = origin.BaseEpoch // the field forked from, joined into its fork
	default:
		return nil, model.Errorf(op, model.CodeInvalidRequest, "join a fork made with arbiter fork, or give --base-epoch N: the epoch the two diverged at",
			"%s is not a fork of this field%s", forkName, forkOf(forigin))
	}
	forkEpoch, err := ftx.Epoch()
	if err != nil {
		return nil, err
	}
	if j.base > forkEpoch {
		return nil, model.Errorf(op, model.CodeInvalidRequest, fmt.Sprintf("give an epoch from 0 to %d", forkEpoch),
			"the base epoch %d is past the fork's clock, %d", j.base, forkEpoch)
	}
	all, err := tx.FieldLinks()
	if err != nil {
		return nil, err
	}
	j.link = model.FieldLink{UID: j.uid, Kind: model.LinkFork, Name: forkName, BaseEpoch: j.base}
	for _, l := range all {
		if l.UID == j.uid && l.Kind != model.LinkSelf {
			j.link.Kind, j.link.JoinedEpoch = l.Kind, l.JoinedEpoch
		}
	}
	j.since = max(j.base, j.link.JoinedEpoch)
	j.link.JoinedEpoch = forkEpoch
	j.rep = &model.JoinReport{Fork: forkName, ForkUID: j.uid, BaseEpoch: j.base, Since: j.since, ForkEpoch: forkEpoch,
		DryRun: opt.DryRun, Nothing: forkEpoch <= j.since,
		RevisionConflicts: []string{}, DecisionsTaken: []string{}, DecisionsDiffer: []string{}, DecisionsKept: []string{},
		AgentsRegistered: []string{}, AgentsDiffer: []string{}}
	return j, nil
}

// forkOf says what a field that is not this one's fork was forked from.
func forkOf(origin model.FieldLink) string {
	if origin.UID == "" {
		return " (it was never forked from a field)"
	}
	return fmt.Sprintf(" (it was forked from %s at epoch %d)", origin.Name, origin.BaseEpoch)
}

// run carries the join out.
func (j *joiner) run() error {
	var err error
	if j.epoch, err = j.tx.EpochWitness(j.rep.ForkEpoch); err != nil {
		return err
	}
	j.now = j.s.now()
	steps := []func() error{j.divergence, j.agents, j.actAgain, j.bringUnits, j.bringConflicts, j.bringVotes, j.openRevisions, j.finish}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// actAgain names the joining person as who acts again, after agents
// registered in their own names.
func (j *joiner) actAgain() error {
	_, err := caller(j.tx, model.OpJoin, j.by.ID)
	return err
}

// finish records how far the fork was joined and logs the join.
func (j *joiner) finish() error {
	if err := j.tx.FieldLinkPut(j.link); err != nil {
		return err
	}
	_, err := j.tx.EventAppend(model.Event{Epoch: j.epoch, Operation: model.OpJoin, AgentID: j.by.ID, At: j.now,
		Payload: mustJSON(j.log("", "", nil, j.rep))})
	return err
}

func (j *joiner) log(kind, forkID string, decision *model.Resolution, rep *model.JoinReport) model.JoinLog {
	return model.JoinLog{Fork: j.name, ForkUID: j.uid, BaseEpoch: j.base, ForkEpoch: j.rep.ForkEpoch,
		Report: rep, Kind: kind, ForkID: forkID, Decision: decision}
}

// logConflict logs a JOIN event on conflict id: what the join did to it.
func (j *joiner) logConflict(id, kind, forkID string, decision *model.Resolution) error {
	_, err := j.tx.EventAppend(model.Event{Epoch: j.epoch, Operation: model.OpJoin, AgentID: j.by.ID,
		ConflictID: &id, At: j.now, Payload: mustJSON(j.log(kind, forkID, decision, nil))})
	return err
}

// agents registers the fork's agents the field does not know, and
// reports those registered differently on the two sides.
func (j *joiner) agents() error {
	theirs, err := j.ftx.Agents()
	if err != nil {
		return err
	}
	for _, a := range theirs {
		mine, err := j.tx.Agent(a.ID)
		switch {
		case err == nil:
			if mine.Role != a.Role || mine.Kind != a.Kind || mine.Authority != a.Authority {
				j.rep.AgentsDiffer = append(j.rep.AgentsDiffer, a.ID)
			}
			continue
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		if _, err := RegisterIn(j.tx, a); err != nil {
			if pe, ok := model.AsError(err); ok {
				return model.Errorf(model.OpJoin, pe.Code, "remove the agent from the fork, or register it here under a valid id",
					"the fork's agent %q cannot be registered here: %s", a.ID, pe.Message)
			}
			return err
		}
		j.rep.AgentsRegistered = append(j.rep.AgentsRegistered, a.ID)
	}
	return nil
}
