package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) reworkCmd() *cobra.Command {
	var (
		req    model.ReworkRequest
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "rework CONFLICT --rationale TEXT [--deadline D] [--fallback F]",
		Short: "Send a conflict back to the authors of its units to revise (reject)",
		Long: `Send a conflict back to its authors, as --as: WACP's reject with agent
rework. The conflict becomes resolving; both authors get a notification that
requires action, with your rationale as their directive. When an author
records a unit that supersedes their unit of the conflict, the conflict is
examined again: if the revision still contradicts the other unit, the new
conflict that opens continues this one; otherwise this one resolves with
strategy rework.

It takes what deciding the conflict takes: on an escalated conflict a human
operator, or its owner where the policy lets owners decide. It works with or
without a proposal. --deadline D (90s, 4h, 2d) and --fallback F (dismiss,
last_write_wins, confidence_weighted, evidence_count, escalate:ID; not
rework) bound the revision; without them the policy's escalation defaults
apply. A rework needs the live field: it is refused on a read-only field,
and with --decisions-out. --expect-version N refuses it if the conflict
changed since you read it; --json prints the response.`,
		Args: exactArgs(1, "one conflict id"),
		PreRunE: func(*cobra.Command, []string) error {
			if req.ExpectedVersion < 0 {
				return usageErrorf("--expect-version %d: versions start at 1", req.ExpectedVersion)
			}
			if err := checkRoutingFlags(req.Deadline, string(req.Fallback)); err != nil {
				return err
			}
			return nil
		},
		RunE: a.writingCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			req.ConflictID = args[0]
			resp, err := svc.Rework(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, resp)
			}
			printRework(a.stdout, resp, time.Now())
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&req.Rationale, "rationale", "", "what the authors should revise: their directive (required)")
	fl.StringVar(&req.Deadline, "deadline", "", "how long the authors have (90s, 4h, 2d; default: the policy's escalation timeout)")
	fl.StringVar((*string)(&req.Fallback), "fallback", "", "what executes at the deadline: dismiss, a rule or escalate:ID (default: the policy's)")
	fl.Int64Var(&req.ExpectedVersion, "expect-version", 0, "the conflict version you read (0: not checked)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("rationale")
	return cmd
}

func printRework(w io.Writer, resp model.ReworkResponse, now time.Time) {
	c := resp.Conflict
	fmt.Fprintf(w, "sent %s back for rework (now %s, version %d): its authors revise by superseding their units\n",
		clean(c.ID), c.Status, c.Version)
	if c.Route != nil {
		fmt.Fprintf(w, "  route       %s\n", clean(c.Route.DescribeDeadline(now)))
	}
	fmt.Fprintf(w, "  notified    %s\n", cleanList(resp.NotifiedAgents))
}

// checkRoutingFlags refuses a --deadline or --fallback that does not
// parse, before the field is opened.
func checkRoutingFlags(deadline, fallback string) error {
	if deadline != "" {
		if _, err := model.ParseDeadline(deadline); err != nil {
			return usageErrorf("--deadline: %v", err)
		}
	}
	if _, err := model.ParseFallback(fallback); err != nil {
		return usageErrorf("--fallback: %v", err)
	}
	return nil
}
