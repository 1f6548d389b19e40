package cli

import (
	"context"
	"fmt"
	"io"

	"arbiter/internal/decisions"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/interop"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) applyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "apply DECISIONS",
		Short: "Apply decisions made offline (a decisions file) to the live field",
		Long: `Apply the decisions file DECISIONS — written by merge, vote and the review
screen on a read-only copy of a field opened with --decisions-out — to the
live field --db, in order, each as the agent who made it and in its own
transaction. Each message's epoch is witnessed by the field's clock; a
decision whose conflict changed since it was made (another version) is
refused with INVALID_TRANSITION, as any stale decision is; the rest go
through the same rules as merge and vote. A decision applied before is
reported as already applied and changes nothing, so applying a file twice
is safe.

One line per decision (applied, refused: why, already applied) and a
summary; --json prints them as one object. Exit 0 when every decision is
applied or already applied, 3 when any was refused, 1 when the file is
not a decisions file (nothing is applied then).`,
		Args: exactArgs(1, "one decisions file"),
		RunE: a.do(func(cmd *cobra.Command, args []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			ds, err := decisions.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("%w; nothing was applied", err)
			}
			if ds.TornLine > 0 {
				fmt.Fprintf(a.stderr, "arbiter: %s: skipped the torn last line %d (a writer stopped mid-line)\n", clean(args[0]), ds.TornLine)
			}
			cfg.DecisionsOut = "" // apply writes to the field, never to a file
			return a.withField(cmd.Context(), cfg, func(ctx context.Context, svc *review.Service) error {
				a.sweepFirst(ctx, svc)
				return a.apply(ctx, svc, args[0], ds, asJSON)
			})
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// appliedJSON is one decision's line of apply --json.
type appliedJSON struct {
	Line       int                  `json:"line"`
	MessageID  string               `json:"message_id"`
	ConflictID string               `json:"conflict_id"`
	AgentID    string               `json:"agent_id"`
	Status     string               `json:"status"`
	Conflict   model.ConflictStatus `json:"conflict_status,omitempty"`
	Version    int64                `json:"version,omitempty"`
	Error      *model.Error         `json:"error,omitempty"`
}

func (a *app) apply(ctx context.Context, svc *review.Service, file string, ds decisions.File, asJSON bool) error {
	var lines []appliedJSON
	p := newProgress(a.stderr, "apply", "decisions", int64(len(ds.Messages)))
	sum, err := interop.ApplyDecisions(ctx, svc, ds, func(o interop.Outcome) {
		p.add(1)
		j := appliedJSON{Line: o.Line, MessageID: o.Envelope.ID, ConflictID: o.Request.ConflictID,
			AgentID: o.Envelope.AgentID, Status: o.Status()}
		if c := appliedConflict(o.Result); c != nil {
			j.Conflict, j.Version = c.Status, c.Version
		}
		if pe, ok := model.AsError(o.Err); ok {
			j.Error = pe
		} else if o.Err != nil {
			j.Error = &model.Error{Code: model.CodeInternalError, Message: o.Err.Error()}
		}
		lines = append(lines, j)
		if !asJSON {
			printApplied(a.stdout, j)
		}
	})
	p.finish()
	if err != nil {
		return err
	}
	if asJSON {
		if lines == nil {
			lines = []appliedJSON{}
		}
		if err := jsonout.Write(a.stdout, map[string]any{"file": file, "decisions": lines, "summary": sum}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "applied %d, already applied %d, refused %d (of %s in %s)\n",
			sum.Applied, sum.AlreadyApplied, sum.Refused, plural(len(ds.Messages), "decision", "decisions"), clean(file))
	}
	if sum.Refused > 0 {
		return &exitStatus{exitProtocol}
	}
	return nil
}

func appliedConflict(r model.ApplyResult) *model.Conflict {
	switch {
	case r.Merge != nil:
		return &r.Merge.Conflict
	case r.Vote != nil:
		return &r.Vote.Conflict
	}
	return nil
}

func printApplied(w io.Writer, j appliedJSON) {
	head := fmt.Sprintf("line %d  %s  %s by %s", j.Line, clean(j.MessageID), clean(j.ConflictID), clean(j.AgentID))
	switch {
	case j.Error != nil:
		fmt.Fprintf(w, "%s: refused: %s\n", head, clean(j.Error.Error()))
	case j.Status == "already applied":
		fmt.Fprintf(w, "%s: already applied\n", head)
	default:
		fmt.Fprintf(w, "%s: applied: %s (now version %d)\n", head, j.Conflict, j.Version)
	}
}
