package cli

import (
	"context"
	"fmt"
	"io"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) reopenCmd() *cobra.Command {
	var (
		req    model.ReopenRequest
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "reopen CONFLICT --rationale TEXT",
		Short: "Take back the decision that resolved a conflict (a human operator)",
		Long: `Take back the decision that resolved a conflict, as --as, a human operator
(authority 10). The conflict is escalated again, to you; the units the
decision superseded stand again; a synthesis unit it created is retracted;
the authors and whoever decided are notified. All of it is one transaction.
Refused when a later decision depends on this one (a unit it would restore
or retract takes part in a conflict resolved since). --expect-version N
refuses it if the conflict changed since you read it; --json prints the
response.`,
		Args: exactArgs(1, "one conflict id"),
		PreRunE: func(*cobra.Command, []string) error {
			if req.ExpectedVersion < 0 {
				return usageErrorf("--expect-version %d: versions start at 1", req.ExpectedVersion)
			}
			return nil
		},
		RunE: a.writingCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			req.ConflictID = args[0]
			resp, err := svc.Reopen(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, resp)
			}
			printReopen(a.stdout, resp)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&req.Rationale, "rationale", "", "why the decision is taken back (required)")
	fl.Int64Var(&req.ExpectedVersion, "expect-version", 0, "the conflict version you read (0: not checked)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("rationale")
	return cmd
}

func printReopen(w io.Writer, resp model.ReopenResponse) {
	c := resp.Conflict
	fmt.Fprintf(w, "reopened %s: escalated again (now version %d)\n", clean(c.ID), c.Version)
	fmt.Fprintf(w, "  undone      %s by %s at epoch %d\n", clean(string(resp.Undone.Strategy)), clean(resp.Undone.ResolvedBy), resp.Undone.EpochResolved)
	if len(resp.Restored) > 0 {
		fmt.Fprintf(w, "  restored    %s\n", cleanList(resp.Restored))
	}
	if resp.Retracted != nil {
		fmt.Fprintf(w, "  retracted   %s\n", clean(*resp.Retracted))
	}
	fmt.Fprintf(w, "  notified    %s\n", cleanList(resp.NotifiedAgents))
}
