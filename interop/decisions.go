package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"arbiter/internal/akashiklog"
	"arbiter/model"
	"arbiter/review"
	"arbiter/store"
)

// Decision is one message of a decisions file.
type Decision struct {
	Line     int
	Envelope model.Envelope
	Request  model.MergeRequest
}

// Decisions is a parsed decisions file.
type Decisions struct {
	Messages []Decision
	// TornLine is a torn last line that was skipped (a writer that died
	// mid-line), 0 when there was none.
	TornLine int
}

// ReadDecisionsFile reads the decisions file at path. See ReadDecisions.
func ReadDecisionsFile(path string) (Decisions, error) {
	f, err := os.Open(path)
	if err != nil {
		return Decisions{}, err
	}
	defer f.Close()
	d, err := ReadDecisions(f)
	if err != nil {
		return d, fmt.Errorf("decisions file %s: %w", path, err)
	}
	return d, nil
}

// ReadDecisions parses a decisions file: one Akashik MERGE message per
// line (see review.Service.WithDecisionsOut), blank lines skipped. A last
// line that is not JSON is skipped as torn; anything else wrong — a line
// that is not JSON before the last, a message of another protocol or
// version or operation, a payload without conflict_id or strategy, a
// message id given twice — is an *akashiklog.LineError naming the line,
// and nothing is returned.
func ReadDecisions(r io.Reader) (Decisions, error) {
	var out Decisions
	br := bufio.NewReader(r)
	first := map[string]int{}
	var torn *akashiklog.LineError
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return Decisions{}, err
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if torn != nil {
				return Decisions{}, torn
			}
			if !json.Valid(trimmed) {
				torn = &akashiklog.LineError{Line: n, Reason: "invalid JSON"}
			} else {
				d, lerr := decodeDecision(n, trimmed)
				if lerr != nil {
					return Decisions{}, lerr
				}
				if at, dup := first[d.Envelope.ID]; dup {
					return Decisions{}, &akashiklog.LineError{Line: n,
						Reason: fmt.Sprintf("message id %q is used again (first on line %d)", d.Envelope.ID, at)}
				}
				first[d.Envelope.ID] = n
				out.Messages = append(out.Messages, d)
			}
		}
		if err != nil {
			break
		}
	}
	if torn != nil {
		out.TornLine = torn.Line
	}
	return out, nil
}

func decodeDecision(n int, line []byte) (Decision, *akashiklog.LineError) {
	var env model.Envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return Decision{}, &akashiklog.LineError{Line: n, Reason: "not an Akashik message: " + err.Error()}
	}
	req, err := review.DecodeDecision(env)
	if err != nil {
		return Decision{}, &akashiklog.LineError{Line: n, Reason: err.Error()}
	}
	return Decision{Line: n, Envelope: env, Request: req}, nil
}

// Outcome is what became of one decision of a decisions file.
type Outcome struct {
	Decision
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
func ApplyDecisions(ctx context.Context, svc *review.Service, ds Decisions, fn func(Outcome)) (ApplySummary, error) {
	var sum ApplySummary
	for _, d := range ds.Messages {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		res, err := svc.ApplyDecision(ctx, d.Envelope)
		o := Outcome{Decision: d, Result: res, Err: err}
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
func DecisionHistory(ctx context.Context, st *store.Store, fn func(model.Envelope) error) error {
	return st.Read(ctx, func(tx *store.Tx) error {
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
	case "VOTE":
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
	return model.NewEnvelope(id, "MERGE", e.AgentID, e.Epoch, rec)
}
