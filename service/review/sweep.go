package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Sweep does what the field's deadlines ask for at the service's clock,
// and returns what it did:
//
//   - a decision a person made on the review screen, held in its undo
//     window when the screen ended, is carried out as that person once it
//     is due (held.go); a refusal is told to them in their inbox;
//   - a conflict waiting for people with a fifth of its time left: its
//     owner (any human operator without one; a vote's voters who have
//     not voted; a rework's authors) is reminded, once;
//   - one past its deadline without a fallback: they are told it is
//     overdue, once; it stays where it is;
//   - one past its deadline with a fallback: the fallback executes —
//     dismiss, a deterministic rule (a tie cannot decide: the conflict
//     stays escalated for any human operator, without deadline), rework
//     (sent back to its authors), or escalate:ID (routed to ID with a
//     fresh deadline of the same length and no fallback) — as a decision
//     by "fallback" with "outcome": "timeout" in its event, telling the
//     authors, the owner and the voters;
//   - a vote past its deadline: the majority of the ballots cast prevails
//     if at least the policy's vote_min_ballots were cast; otherwise its
//     fallback executes (or it is overdue).
//
// Each conflict is handled in a transaction of its own that reads it
// again and acts only if it is still due; a fallback is a compare-and-set
// on the conflict's version like any decision and a reminder one on its
// reminder count. So sweepers racing in separate processes do each thing
// once, and one killed half way leaves each conflict whole. When nothing
// is due, a sweep is one read of two small indexes.
//
// On a read-only field (a decisions file included) Sweep writes nothing
// and returns READ_ONLY.
func (s *Service) Sweep(ctx context.Context) (model.SweepReport, error) {
	const op = model.OpSweep
	rep := model.SweepReport{Actions: []model.SweepAction{}}
	if s.st.ReadOnly() {
		return rep, s.write(ctx, op, func(store.Tx) error { return nil })
	}
	rep.At = s.now()
	// First the decisions people made before the deadlines came, held in
	// their undo window on screens that ended before writing them.
	held, err := s.sweepHeld(ctx, rep.At)
	rep.Held = held
	if err != nil {
		return rep, err
	}
	var due []model.Conflict
	if err := s.st.Read(ctx, func(tx store.Tx) (err error) { due, err = tx.ConflictsDue(rep.At); return err }); err != nil {
		return rep, err
	}
	for _, c := range due {
		var act *model.SweepAction
		err := s.write(ctx, op, func(tx store.Tx) (err error) {
			if s.sweeper != "" {
				if err := tx.AgentActAs(s.sweeper); err != nil {
					return err
				}
			}
			act, err = s.sweepOne(tx, c.ID, rep.At)
			return err
		})
		switch {
		case model.HasCode(err, model.CodeInvalidTransition):
			continue // another sweeper, or a person, acted first
		case err != nil:
			return rep, err
		case act != nil:
			rep.Actions = append(rep.Actions, *act)
		}
	}
	return rep, nil
}

// sweepOne does what conflict id's route asks for at at, if it still asks
// for anything.
func (s *Service) sweepOne(tx store.Tx, id string, at time.Time) (*model.SweepAction, error) {
	c, err := tx.Conflict(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || c.Route == nil {
		return nil, err
	}
	d, err := detail(tx, model.OpSweep, id)
	if err != nil {
		return nil, err
	}
	switch c.Route.DueAt(c.Status, at) {
	case model.DueReminder:
		return remind(tx, d, at, 1)
	case model.DueOverdue:
		return remind(tx, d, at, 2)
	case model.DueDeadline:
		return s.deadline(tx, d, at)
	}
	return nil, nil
}

// waitingFor lists who a routed conflict waits for, by the field's one
// rule of who is told (model.Concerned): its owner, else every human
// operator; for a vote, the eligible voters who have not voted; for a
// rework, its authors (and, once overdue, whoever sent it back).
func waitingFor(tx store.Tx, d model.ConflictDetail, overdue bool) ([]string, error) {
	event := model.EventConflictReminder
	if overdue {
		event = model.EventConflictOverdue
	}
	ch := model.Change{Event: event, Before: d.Conflict, After: d.Conflict, Ballots: d.Ballots,
		Authors: []string{d.A.Unit.Source.AgentID, d.B.Unit.Source.AgentID}}
	var err error
	if ch.NeedsVoters() {
		if ch.Voters, err = voters(tx, d); err != nil {
			return nil, err
		}
	}
	if ch.NeedsOperators() {
		if ch.Operators, err = humanOperators(tx); err != nil {
			return nil, err
		}
	}
	return model.Concerned(ch), nil
}

// remind tells who the conflict of d waits for that a fifth of its time is
// left (reminders 1) or that it is overdue (2). The conflict's version
// stays; a REMIND event by "sweep" logs it.
func remind(tx store.Tx, d model.ConflictDetail, at time.Time, reminders int) (*model.SweepAction, error) {
	c := d.Conflict
	r := *c.Route
	to, err := waitingFor(tx, d, reminders == 2)
	if err != nil {
		return nil, err
	}
	epoch, err := tx.EpochTick()
	if err != nil {
		return nil, err
	}
	kind, event := model.SweepReminder, model.EventConflictReminder
	waits := "waits for you"
	if c.Status == model.StatusResolving {
		waits = "waits for its authors' revision"
	}
	summary := fmt.Sprintf("%s %s: %s left of %s (%s)", c.ID, waits, r.DueIn(at), model.ShortDuration(r.Length()), r.DescribeDeadline(at))
	result := fmt.Sprintf("%s left of %s", r.DueIn(at), model.ShortDuration(r.Length()))
	if reminders == 2 {
		kind, event = model.SweepOverdue, model.EventConflictOverdue
		summary = fmt.Sprintf("%s is overdue: its deadline %s passed and no fallback executes; it %s still",
			c.ID, r.Deadline.UTC().Format("2006-01-02 15:04 UTC"), waits)
		result = "no fallback executes: it waits on, overdue"
	}
	notified, err := notify(tx, to, model.Notification{Event: event, Epoch: epoch, CreatedAt: at, ConflictID: &c.ID,
		RequiresAction: true, Summary: summary})
	if err != nil {
		return nil, err
	}
	if err := tx.ConflictSetReminded(c.ID, r.Reminded, reminders); err != nil {
		if store.IsStale(err) {
			return nil, model.Errorf(model.OpSweep, model.CodeInvalidTransition, "", "%s was reminded meanwhile", c.ID)
		}
		return nil, err
	}
	if _, err := tx.EventAppend(model.Event{Epoch: epoch, Operation: model.OpRemind, AgentID: model.SweepAgent,
		ConflictID: &c.ID, At: at, Payload: mustJSON(model.RemindLog{ConflictID: c.ID, Kind: kind,
			Reminded: reminders, Owner: r.Owner, Deadline: r.Deadline, Fallback: r.Fallback,
			Left: r.DueIn(at), NotifiedAgents: notified})}); err != nil {
		return nil, err
	}
	return &model.SweepAction{ConflictID: c.ID, Kind: kind, Fallback: r.Fallback, Status: c.Status, Owner: r.Owner,
		Result: result, NotifiedAgents: notified, Epoch: epoch}, nil
}
