package interop

import (
	"context"
	"encoding/json"
	"fmt"

	"arbiter/internal/decisions"
	"arbiter/model"
	"arbiter/review"
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
	return st.Read(ctx, func(tx store.Tx) error {
		return tx.EachDecision(func(e model.Event) error {
			env, err := historyEnvelope(e)
			if err != nil {
				return fmt.Errorf("event %d: %w", e.ID, err)
			}
			return fn(env)
		})
	})
}

// loggedDecision is the payload review logs with a MERGE or VOTE event.
type loggedDecision struct {
	Request         json.RawMessage      `json:"request"`
	Status          model.ConflictStatus `json:"status"`
	SupersededUnits []string             `json:"superseded_units"`
	NewUnitID       *string              `json:"new_unit_id"`
	MessageID       string               `json:"message_id"`
}

func historyEnvelope(e model.Event) (model.Envelope, error) {
	var logged loggedDecision
	if err := json.Unmarshal(e.Payload, &logged); err != nil {
		return model.Envelope{}, err
	}
	var rec model.DecisionRecord
	switch e.Operation {
	case model.OpVote:
		var v struct {
			ConflictID string `json:"conflict_id"`
			Choice     string `json:"choice"`
			Rationale  string `json:"rationale"`
		}
		if len(logged.Request) > 0 {
			if err := json.Unmarshal(logged.Request, &v); err != nil {
				return model.Envelope{}, err
			}
		}
		rec.MergeRequest = model.VoteAsMerge(model.VoteRequest{ConflictID: v.ConflictID, Choice: v.Choice, Rationale: v.Rationale})
	default:
		if len(logged.Request) > 0 {
			if err := json.Unmarshal(logged.Request, &rec.MergeRequest); err != nil {
				return model.Envelope{}, err
			}
		}
	}
	if rec.ConflictID == "" && e.ConflictID != nil {
		rec.ConflictID = *e.ConflictID
	}
	superseded := logged.SupersededUnits
	if superseded == nil {
		superseded = []string{}
	}
	rec.Result = &model.DecisionResult{Status: logged.Status, SupersededUnits: superseded,
		NewUnitID: logged.NewUnitID, EventID: e.ID}
	id := logged.MessageID
	if id == "" {
		id = deterministicULID(e.At, "arbiter-event", fmt.Sprint(e.ID), e.Operation, rec.ConflictID)
	}
	return model.NewEnvelope(id, model.OpMerge, e.AgentID, e.Epoch, rec)
}
