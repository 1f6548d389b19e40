package cli

import (
	"arbiter/store/field"
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/service/fieldgen"

	"github.com/spf13/cobra"
)

func (a *app) genCmd() *cobra.Command {
	var opt fieldgen.Options
	cmd := &cobra.Command{
		Use:   "gen --db FILE [--units N] [--conflicts M] [--open K] [--seed S]",
		Short: "Build a large generated field, for measuring arbiter",
		Long: `Build a new field at --db FILE filled with generated data: a cast of a few
dozen agents and people, N memory units of varied markdown (mostly short,
some long documents with lists, tables and code), relations between them,
and M conflicts opened by contradicts relations. K of the conflicts wait
for people, half escalated and half put to a vote (with some ballots); of
the rest about 3 % are just detected, 1 in 200 resolving, and the others
resolved by every kind of decision. Events and notifications are those the
rules would have written. The same flags and --seed build the same field.
An existing file is never overwritten.

Progress goes to stderr, the final counts to stdout. Open the review screen
on the result as the operator ` + fieldgen.Operator + `.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("conflicts") {
				opt.Conflicts = fieldgen.ConflictsFor(opt.Units)
			}
			if !cmd.Flags().Changed("open") {
				opt.Open = opt.Conflicts / 10
			}
			if err := opt.Check(); err != nil {
				return usageErrorf("%v", err)
			}
			return nil
		},
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			opt.Progress = a.stderr
			var p *progressReport
			if isTerminal(a.stderr) {
				// A bar redrawn in place instead of a line a second.
				p = newProgress(a.stderr, "gen", "units", int64(opt.Units))
				var done int64
				opt.Progress, opt.UnitsDone = nil, func(n int64) { p.add(n - done); done = n }
			}
			start := time.Now()
			c, err := fieldgen.Build(cmd.Context(), cfg.DB, opt)
			p.finish()
			if err != nil {
				return err
			}
			a.printGenCounts(field.Redact(cfg.DB), c, time.Since(start))
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.IntVar(&opt.Units, "units", 1_000_000, "memory units, synthesis units included")
	fl.IntVar(&opt.Conflicts, "conflicts", 0, "conflicts opened by contradicts relations (default: a tenth of --units)")
	fl.IntVar(&opt.Open, "open", 0, "conflicts waiting for people, escalated or put to a vote (default: a tenth of --conflicts)")
	fl.Uint64Var(&opt.Seed, "seed", 1, "seed of the generator: the same seed builds the same field")
	fl.IntVar(&opt.Batch, "batch", fieldgen.DefaultBatch, "rows written per transaction")
	return cmd
}

func (a *app) printGenCounts(path string, c fieldgen.Counts, took time.Duration) {
	var statuses []string
	for _, s := range statusOrder {
		statuses = append(statuses, fmt.Sprintf("%s %d", s, c.Statuses[s]))
	}
	fmt.Fprintf(a.stdout, "built %s in %s\n", clean(path), took.Round(100*time.Millisecond))
	fmt.Fprintf(a.stdout, "  agents         %d (operator %s)\n", c.Agents, fieldgen.Operator)
	fmt.Fprintf(a.stdout, "  units          %d (%.1f MB of markdown)\n", c.Units, float64(c.ContentBytes)/(1<<20))
	fmt.Fprintf(a.stdout, "  relations      %d\n", c.Relations)
	fmt.Fprintf(a.stdout, "  conflicts      %d: %s\n", c.Conflicts, strings.Join(statuses, " · "))
	fmt.Fprintf(a.stdout, "  ballots        %d\n", c.Ballots)
	fmt.Fprintf(a.stdout, "  events         %d\n", c.Events)
	fmt.Fprintf(a.stdout, "  notifications  %d\n", c.Notifications)
	fmt.Fprintf(a.stdout, "  epoch          %d\n", c.Epoch)
	open := c.Statuses[model.StatusEscalated] + c.Statuses[model.StatusPendingVote]
	fmt.Fprintf(a.stdout, "  for review     %d (escalated or put to a vote)\n", open)
}
