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

func (a *app) sweepCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Do what the field's deadlines ask for: reminders, overdue notices, fallbacks",
		Long: `Do what the field's deadlines ask for now, and print what was done:

  - an escalation, a vote or a rework with a fifth of its time left: its
    owner (any human operator without one; a vote's voters who have not
    voted; a rework's authors) is reminded, once;
  - one past its deadline without a fallback: they are told it is
    overdue, once; it waits on;
  - one past its deadline with a fallback: the fallback executes (dismiss,
    a rule, rework, escalate:ID), recorded with resolved_by "fallback" and
    "outcome": "timeout"; a vote's majority prevails first if at least the
    policy's minimum of ballots were cast.

Every writing command sweeps first, and so does the review screen every few
seconds; run this from cron or a systemd timer so that nothing waits on a
person opening arbiter:

  * * * * * arbiter --db /srv/fields/team.db sweep --json >> /var/log/arbiter-sweep.log

It also writes the decisions people made on the review screen that were
held in their undo window when the screen ended (a dropped connection, a
killed process), as the person who made them; one the field refuses by then
is told to that person in their inbox.

Sweepers racing in separate processes do each thing once. --json prints the
sweep's report: {at, actions: [{conflict_id, kind, fallback, status,
strategy, winner_id, owner, result, notified_agents, epoch}], held:
[{id, agent_id, conflict_id, what, written, reason}]}.`,
		Args: cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			rep, err := svc.Sweep(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, rep)
			}
			printSweep(a.stdout, rep)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// sweepFirst sweeps the field's deadlines before a command writes, so that
// a fallback due already is not decided over; quietly, and only on a field
// that takes writes and has deadlines (another program's file has none). A
// failure is said on stderr and the command goes on; a session the field
// takes no sweep from (NOT_PERMITTED) leaves it to others.
func (a *app) sweepFirst(ctx context.Context, svc review.Desk) {
	hw, ok := svc.(review.Highway)
	if !ok {
		return
	}
	if ro, _ := svc.ReadOnly(); ro {
		return
	}
	if _, offline := svc.Offline(); offline {
		return
	}
	if _, err := hw.Sweep(ctx); err != nil && !model.HasCode(err, model.CodeNotPermitted) {
		fmt.Fprintf(a.stderr, "arbiter: sweeping the field's deadlines first failed (going on): %s\n", clean(err.Error()))
	}
}

func printSweep(w io.Writer, rep model.SweepReport) {
	for _, h := range rep.Held {
		result := "written as " + clean(h.AgentID)
		if !h.Written {
			result = "not written (" + clean(h.AgentID) + " is told): " + clean(h.Reason)
		}
		fmt.Fprintf(w, "%s  %-8s  %s, held when a screen ended: %s\n", clean(h.ConflictID), "held", clean(h.What), result)
	}
	if len(rep.Actions) == 0 && len(rep.Held) == 0 {
		fmt.Fprintf(w, "nothing due at %s\n", rep.At.UTC().Format("2006-01-02 15:04:05 UTC"))
		return
	}
	for _, act := range rep.Actions {
		now := ""
		if act.Kind == model.SweepFallback {
			now = fmt.Sprintf(" (now %s)", act.Status)
		}
		fmt.Fprintf(w, "%s  %-8s  %s%s\n", clean(act.ConflictID), act.Kind, clean(act.Result), now)
		if len(act.NotifiedAgents) > 0 {
			fmt.Fprintf(w, "  notified    %s\n", cleanList(act.NotifiedAgents))
		}
	}
}
