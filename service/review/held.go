package review

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// A decision made on the review screen is held in the field for its undo
// window (model.HeldDecision), from before the screen says it will be
// written: the screen writes it when the window closes (WriteHeld), or
// takes it back on undo (Unhold). Should the screen end first — a dropped
// connection, a killed process — whoever sweeps the field carries it out
// once it is due (its window and HeldGrace), as the person who made it,
// and if the field refuses it by then that person is told in their
// inbox; their next screen says what came of it (HeldReport).

// Holder is what a screen asks of a field that holds its decisions in
// their undo window. *Service implements it; Holds says whether this
// field does (a screen over one that does not holds them itself).
type Holder interface {
	Holds() bool
	Hold(ctx context.Context, callerID string, ids []string, reqs model.HeldRequests, window time.Duration) error
	Unhold(ctx context.Context, callerID string, ids []string) (int, error)
	WriteHeld(ctx context.Context, callerID string, ids []string) []HeldResult
	LeaveHeld(ctx context.Context, ids []string) ([]model.HeldOutcome, error)
	HeldReport(ctx context.Context, callerID string) (done, waiting []model.HeldDecision, err error)
}

var _ Holder = (*Service)(nil)

// HeldGrace is how long past its window a held decision waits for the
// screen that holds it, whose countdown may run late on a loaded
// machine, before a sweep carries it out.
const HeldGrace = 10 * time.Second

// heldPerSweep is at most how many held decisions one sweep carries out.
const heldPerSweep = 100

// NewHeldIDs returns n new ids for decisions to hold.
func NewHeldIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		var b [10]byte
		rand.Read(b[:])
		ids[i] = "held-" + hex.EncodeToString(b[:])
	}
	return ids
}

// Holds reports whether the field holds decisions in their undo window:
// one that takes writes does (a screen over a decisions file, or another
// program's file, holds them itself).
func (s *Service) Holds() bool { return !s.st.ReadOnly() }

// Hold keeps reqs in the field as callerID's decisions, ids[i] for the
// i-th request (merges, then votes, then reworks), until the screen
// writes or undoes them, or, window and HeldGrace from now, a sweep
// carries them out.
func (s *Service) Hold(ctx context.Context, callerID string, ids []string, reqs model.HeldRequests, window time.Duration) error {
	at := s.now()
	held, err := reqs.Held(ids, callerID, at, at.Add(window+HeldGrace))
	if err != nil {
		return model.Errorf(model.OpHold, model.CodeInvalidRequest, "", "%v", err)
	}
	return s.write(ctx, model.OpHold, func(tx store.Tx) error {
		if _, err := caller(tx, model.OpHold, callerID); err != nil {
			return err
		}
		for _, h := range held {
			if err := tx.HeldInsert(h); err != nil {
				return err
			}
		}
		return nil
	})
}

// Unhold takes back callerID's held decisions ids that still wait, and
// returns how many it took back: fewer than asked when a sweep carried
// some out first.
func (s *Service) Unhold(ctx context.Context, callerID string, ids []string) (int, error) {
	n := 0
	err := s.write(ctx, model.OpHold, func(tx store.Tx) error {
		n = 0
		if err := tx.AgentActAs(callerID); err != nil {
			return err
		}
		for _, id := range ids {
			ok, err := tx.HeldDelete(id, true)
			if err != nil {
				return err
			}
			if ok {
				n++
			}
		}
		return nil
	})
	return n, err
}

// HeldResult is what came of one held decision the screen wrote.
type HeldResult struct {
	ID         string
	ConflictID string
	Kind       model.HeldKind
	Merge      *model.MergeResponse
	Vote       *model.VoteResponse
	Rework     *model.ReworkResponse
	// Swept: a sweep carried it out before the screen did (Err says why
	// it was not written, if it was not).
	Swept bool
	// Kept: the field could not take it now (busy, gone, its server
	// down); it stays held, and a sweep writes it once the field does.
	Kept bool
	Err  error
}

// WriteHeld writes callerID's held decisions ids now, each in a
// transaction that carries it out and takes it out of the field
// together; a refused one is taken out too, and its refusal returned.
func (s *Service) WriteHeld(ctx context.Context, callerID string, ids []string) []HeldResult {
	out := make([]HeldResult, 0, len(ids))
	for _, id := range ids {
		out = append(out, s.writeHeld(ctx, callerID, id))
	}
	return out
}

func (s *Service) writeHeld(ctx context.Context, callerID, id string) HeldResult {
	r := HeldResult{ID: id}
	err := s.st.Write(ctx, func(tx store.Tx) error {
		if err := tx.AgentActAs(callerID); err != nil {
			return err
		}
		h, err := tx.Held(id)
		if errors.Is(err, store.ErrNotFound) {
			return model.Errorf(model.OpHold, model.CodeInvalidTransition, "", "it is no longer held: it was taken back")
		}
		if err != nil {
			return err
		}
		r.ConflictID, r.Kind = h.ConflictID, h.Kind
		if h.DoneAt != nil {
			r.Swept = true
			if h.Outcome != "" {
				r.Err = errors.New(h.Outcome)
			} else if err := sweptAnswer(tx, h, &r); err != nil {
				return err
			}
			_, err := tx.HeldDelete(id, false)
			return err
		}
		if _, err := tx.HeldDelete(id, true); err != nil {
			return err
		}
		return s.carryOut(tx, h, &r)
	})
	switch {
	case err == nil:
	case refusal(err):
		r.Err = err
		// Refused: the screen shows why, and the field holds it no more.
		if derr := s.st.Write(ctx, func(tx store.Tx) error {
			if err := tx.AgentActAs(callerID); err != nil {
				return err
			}
			_, err := tx.HeldDelete(id, false)
			return err
		}); derr != nil {
			r.Kept = true
		}
	default:
		r.Err, r.Kept = relabel(err, r.Kind), true
	}
	return r
}

// carryOut decides h in tx as its person, its answer in r.
func (s *Service) carryOut(tx store.Tx, h model.HeldDecision, r *HeldResult) error {
	switch h.Kind {
	case model.HeldMerge:
		var req model.MergeRequest
		if err := decodeHeld(h, &req); err != nil {
			return err
		}
		if err := validateMerge(req); err != nil {
			return err
		}
		resp, err := s.merge(tx, h.AgentID, req, "")
		r.Merge = &resp
		return err
	case model.HeldVote:
		var req model.VoteRequest
		if err := decodeHeld(h, &req); err != nil {
			return err
		}
		if err := validateVote(req); err != nil {
			return err
		}
		resp, err := s.vote(tx, h.AgentID, req, "")
		r.Vote = &resp
		return err
	case model.HeldRework:
		var req model.ReworkRequest
		if err := decodeHeld(h, &req); err != nil {
			return err
		}
		if err := validateRework(req); err != nil {
			return err
		}
		resp, err := s.rework(tx, h.AgentID, req)
		r.Rework = &resp
		return err
	}
	return model.Errorf(model.OpHold, model.CodeInvalidRequest, "", "%s holds a decision of unknown kind %q", h.ID, h.Kind)
}

// sweptAnswer is the answer to h, which a sweep wrote: the conflict as
// it stands.
func sweptAnswer(tx store.Tx, h model.HeldDecision, r *HeldResult) error {
	c, err := tx.Conflict(h.ConflictID)
	if err != nil {
		return err
	}
	switch h.Kind {
	case model.HeldMerge:
		r.Merge = &model.MergeResponse{Status: c.Status, Conflict: c}
	case model.HeldVote:
		r.Vote = &model.VoteResponse{Status: c.Status, Conflict: c}
	case model.HeldRework:
		r.Rework = &model.ReworkResponse{Status: c.Status, Conflict: c}
	}
	return nil
}

func decodeHeld(h model.HeldDecision, v any) error {
	if err := json.Unmarshal(h.Request, v); err != nil {
		return model.Errorf(model.OpHold, model.CodeInvalidRequest, "", "%s holds a request that does not decode: %v", h.ID, err)
	}
	return nil
}

// refusal reports whether err is the rules refusing a decision — it was
// decided first, it changed, the person may not — rather than the field
// failing to take a write now (busy, full, gone, a server down, a session
// that may not act as the person), which another try may get past.
func refusal(err error) bool {
	pe, ok := model.AsError(err)
	if !ok {
		return false
	}
	switch pe.Operation {
	case "WRITE", "BEGIN", "COMMIT", "CHECK":
		return false
	}
	switch pe.Code {
	case model.CodeFieldBusy, model.CodeInternalError, model.CodeStorageFull, model.CodeReadOnly, model.CodeFieldGone:
		return false
	}
	return true
}

// relabel names the held request's operation in a store's refusal.
func relabel(err error, kind model.HeldKind) error {
	pe, ok := model.AsError(err)
	if !ok {
		return err
	}
	switch pe.Operation {
	case "WRITE", "BEGIN", "COMMIT":
		relabelled := *pe
		relabelled.Operation = opOfHeld(kind)
		return &relabelled
	}
	return err
}

func opOfHeld(kind model.HeldKind) string {
	switch kind {
	case model.HeldMerge:
		return model.OpMerge
	case model.HeldVote:
		return model.OpVote
	case model.HeldRework:
		return model.OpRework
	}
	return model.OpHold
}
