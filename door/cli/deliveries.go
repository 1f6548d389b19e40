package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) deliveriesCmd() *cobra.Command {
	var asJSON, dead bool
	var limit int
	cmd := &cobra.Command{
		Use:   "deliveries [retry ID|--all]",
		Short: "List the deliveries of notices to hooks; retry dead ones",
		Long: `List the deliveries of notices to hooks, newest first: pending (waiting
for its next try), delivered, or dead (refused with a 4xx other than 408
and 429, or failing after the last try). --dead lists only the dead ones;
arbiter deliveries retry ID (or --all) queues them again.`,
		Args: noCommand,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			q := model.DeliveryQuery{Limit: limit}
			if dead {
				q.State = model.DeliveryDead
			}
			ds, err := svc.Deliveries(ctx, q)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, ds)
			}
			if len(ds) == 0 {
				fmt.Fprintln(a.stdout, "no deliveries")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DELIVERY\tHOOK\tFOR\tEVENT\tSTATE\tTRIES\tNEXT / LAST ERROR")
			for _, d := range ds {
				last := clip(d.LastError, 60)
				if d.State == model.DeliveryPending {
					last = d.NextAt.UTC().Format("15:04:05") + " " + last
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", clean(d.ID), clean(d.HookID), clean(d.Notice.AgentID),
					clean(d.Notice.Event), d.State, d.Attempts, last)
			}
			return tw.Flush()
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&dead, "dead", false, "only the dead deliveries")
	f.IntVar(&limit, "limit", 100, "at most this many (0: all)")
	cmd.AddCommand(callerNeeded(a.deliveriesRetryCmd()))
	return cmd
}

func (a *app) deliveriesRetryCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "retry ID|--all",
		Short: "Queue a dead delivery (or all of them) again (a human operator)",
		Args: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) && len(args) <= 1 {
				return fmt.Errorf("retry takes one delivery id or --all")
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			n, err := svc.DeliveryRetry(ctx, cfg.As, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d queued again\n", n)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "every dead delivery")
	return cmd
}
