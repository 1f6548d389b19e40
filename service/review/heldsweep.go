package review

import (
	"context"
	"errors"
	"fmt"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Held decisions whose screen ended before writing them: carried out as
// their person when the screen closes (LeaveHeld) or, once due, by a sweep
// (sweepHeld); what came of them is kept for the person's next screen
// (HeldReport).

// LeaveHeld carries out now the held decisions ids that still wait, as a
// sweep would once they are due: for a screen that ends (its session
// closed) with a decision in its window, which its person can no longer
// undo. A refusal is told to the person in their inbox.
func (s *Service) LeaveHeld(ctx context.Context, ids []string) ([]model.HeldOutcome, error) {
	var out []model.HeldOutcome
	for _, id := range ids {
		var h model.HeldDecision
		err := s.st.Read(ctx, func(tx store.Tx) (err error) { h, err = tx.Held(id); return err })
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return out, err
		case h.DoneAt != nil:
			continue
		}
		o, err := s.carryOutHeld(ctx, h, s.now())
		if err != nil {
			return out, err
		}
		if o != nil {
			out = append(out, *o)
		}
	}
	return out, nil
}

// sweepHeld carries out the held decisions due at at, whose screens ended
// before writing them.
func (s *Service) sweepHeld(ctx context.Context, at time.Time) ([]model.HeldOutcome, error) {
	var due []model.HeldDecision
	if err := s.st.Read(ctx, func(tx store.Tx) (err error) { due, err = tx.HeldDue(at, heldPerSweep); return err }); err != nil {
		return nil, err
	}
	var out []model.HeldOutcome
	for _, h := range due {
		o, err := s.carryOutHeld(ctx, h, at)
		if err != nil {
			return out, err
		}
		if o != nil {
			out = append(out, *o)
		}
	}
	return out, nil
}

// carryOutHeld carries out h as its person, marking it done, with what
// came of it, in the same transaction: nil when another sweeper or the
// screen took it first, or when this session may not act as its person
// (it is left to one who may). A refusal marks it done with the reason
// and tells the person, in their inbox.
func (s *Service) carryOutHeld(ctx context.Context, h model.HeldDecision, at time.Time) (*model.HeldOutcome, error) {
	o := &model.HeldOutcome{ID: h.ID, AgentID: h.AgentID, ConflictID: h.ConflictID, What: h.Describe(), Written: true}
	claimed := false
	err := s.st.Write(ctx, func(tx store.Tx) error {
		if err := tx.AgentActAs(h.AgentID); err != nil {
			return err
		}
		ok, err := tx.HeldDone(h.ID, at, "")
		if claimed = ok; err != nil || !ok {
			return err
		}
		var r HeldResult
		return s.carryOut(tx, h, &r)
	})
	switch {
	case err == nil && !claimed:
		return nil, nil
	case err == nil:
		return o, nil
	case model.HasCode(err, model.CodeNotPermitted) && !refusal(err):
		return nil, nil // this session may not act as them: left to one who may
	case !refusal(err):
		return nil, relabel(err, h.Kind)
	}
	o.Written, o.Reason = false, reasonOf(err)
	err = s.st.Write(ctx, func(tx store.Tx) error {
		if err := tx.AgentActAs(h.AgentID); err != nil {
			return err
		}
		ok, err := tx.HeldDone(h.ID, at, o.Reason)
		if claimed = ok; err != nil || !ok {
			return err
		}
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		_, err = notify(tx, []string{h.AgentID}, model.Notification{Event: model.EventNotWritten, Epoch: epoch, CreatedAt: at,
			ConflictID: &h.ConflictID, RequiresAction: true,
			Summary: fmt.Sprintf("Your decision %s, held in its undo window when your screen closed, was not written: %s", o.What, o.Reason)})
		return err
	})
	switch {
	case err != nil:
		return nil, relabel(err, h.Kind)
	case !claimed:
		return nil, nil
	}
	return o, nil
}

// reasonOf is a refusal's sentence.
func reasonOf(err error) string {
	if pe, ok := model.AsError(err); ok {
		return pe.Message
	}
	return err.Error()
}

// HeldReport returns what became of callerID's decisions that sweeps
// carried out after their screens ended, and forgets them (their next
// screen says it once), with those that still wait: what the screen
// that opens says of the sessions before it.
func (s *Service) HeldReport(ctx context.Context, callerID string) (done, waiting []model.HeldDecision, err error) {
	if err := s.st.Read(ctx, func(tx store.Tx) error {
		all, err := tx.HeldOf(callerID)
		for _, h := range all {
			if h.DoneAt != nil {
				done = append(done, h)
			} else {
				waiting = append(waiting, h)
			}
		}
		return err
	}); err != nil || len(done) == 0 || s.st.ReadOnly() {
		return done, waiting, err
	}
	err = s.write(ctx, model.OpHold, func(tx store.Tx) error {
		if err := tx.AgentActAs(callerID); err != nil {
			return err
		}
		for _, h := range done {
			if _, err := tx.HeldDelete(h.ID, false); err != nil {
				return err
			}
		}
		return nil
	})
	return done, waiting, err
}
