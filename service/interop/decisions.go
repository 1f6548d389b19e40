package interop

import (
	"context"
	"fmt"

	"arbiter/internal/decisions"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
)

// Outcome is what became of one decision of a decisions file.
type Outcome struct {
	decisions.Message
	Result model.ApplyResult
	// Err is the field's refusal, nil when the decision was applied or
	// found applied before.
	Err error
}

// Status is "applied", "already applied" or "refused".
func (o Outcome) Status() string {
	switch {
	case o.Err != nil:
		return "refused"
	case o.Result.AlreadyApplied:
		return "already applied"
	}
	return "applied"
}

// ApplySummary counts the outcomes of an apply.
type ApplySummary struct {
	Applied        int `json:"applied"`
	AlreadyApplied int `json:"already_applied"`
	Refused        int `json:"refused"`
}

// ApplyDecisions applies the decisions in file order, each in its own
// transaction through review.Service.ApplyDecision, and calls fn with
// each outcome as it comes. A refusal does not stop the rest: each
// decision stands or falls on its own, as it would have live. An error
// that is not the field's refusal of one decision (the field cannot be
// written at all, the context ends) stops the run and is returned.
func ApplyDecisions(ctx context.Context, svc *review.Service, ds decisions.File, fn func(Outcome)) (ApplySummary, error) {
	var sum ApplySummary
	for _, d := range ds.Messages {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		res, err := svc.ApplyDecision(ctx, d.Envelope)
		o := Outcome{Message: d, Result: res, Err: err}
		if pe, ok := model.AsError(err); err != nil && (!ok || fatal(pe.Code)) {
			return sum, err
		}
		switch o.Status() {
		case "refused":
			sum.Refused++
		case "already applied":
			sum.AlreadyApplied++
		default:
			sum.Applied++
		}
		fn(o)
	}
	return sum, nil
}

// fatal codes say the field cannot take any decision, not that this one
// is wrong.
func fatal(c model.Code) bool {
	return c == model.CodeReadOnly || c == model.CodeStorageFull || c == model.CodeInternalError || c == model.CodeFieldBusy
}

// DecisionHistory calls fn with every decision the field's event log
// holds — each MERGE (resolved, escalated or put to a vote) and each
// ballot — as an Akashik MERGE message, oldest first. A decision applied
// from a decisions file keeps its message id; the others get a ULID made
// from the event's time and a hash of its log position, the same on every
// run. The payload is the MERGE request with the result: the status it
// left, the units it superseded, the unit it created and the event's id.
func DecisionHistory(ctx context.Context, st store.Field, fn func(model.Envelope) error) error {
	return st.Read(ctx, func(tx store.Tx) error { return decisionHistory(tx, fn) })
}

// decisionHistory is DecisionHistory in a transaction: the log alone.
func decisionHistory(tx store.EventTx, fn func(model.Envelope) error) error {
	return tx.DecisionEach(func(e model.Event) error {
		env, err := historyEnvelope(e)
		if err != nil {
			return fmt.Errorf("event %d: %w", e.ID, err)
		}
		return fn(env)
	})
}

// historyEnvelope is the Akashik MERGE message of a MERGE or VOTE event.
func historyEnvelope(e model.Event) (model.Envelope, error) {
	var rec model.DecisionRecord
	var id string
	var err error
	if e.Operation == model.OpVote {
		rec, id, err = historyRecord(e, func(v model.BallotLog) model.MergeRequest {
			return model.VoteAsMerge(model.VoteRequest{ConflictID: v.ConflictID, Choice: v.Choice, Rationale: v.Rationale})
		})
	} else {
		rec, id, err = historyRecord(e, func(r model.MergeRequest) model.MergeRequest { return r })
	}
	if err != nil {
		return model.Envelope{}, err
	}
	if id == "" {
		id = deterministicULID(e.At, "arbiter-event", fmt.Sprint(e.ID), e.Operation, rec.ConflictID)
	}
	return model.NewEnvelope(id, model.OpMerge, e.AgentID, e.Epoch, rec)
}

// historyRecord reads e's payload as the decision's log with a request R,
// which asMerge turns into a MERGE request, and returns the decision with
// its result and the id of the message it was applied from ("" for a
// live one).
func historyRecord[R any](e model.Event, asMerge func(R) model.MergeRequest) (model.DecisionRecord, string, error) {
	p, err := model.DecodePayload[model.DecisionLog[R]](e)
	if err != nil {
		return model.DecisionRecord{}, "", err
	}
	rec := model.DecisionRecord{MergeRequest: asMerge(p.Request)}
	if rec.ConflictID == "" && e.ConflictID != nil {
		rec.ConflictID = *e.ConflictID
	}
	superseded := p.SupersededUnits
	if superseded == nil {
		superseded = []string{}
	}
	rec.Result = &model.DecisionResult{Status: p.Status, SupersededUnits: superseded, NewUnitID: p.NewUnitID, EventID: e.ID}
	return rec, p.MessageID, nil
}
