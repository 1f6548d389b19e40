package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/internal/statsview"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) statsCmd() *cobra.Command {
	var (
		sinceText string
		asJSON    bool
		width     int
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Print the field's figures: the queue, decision times, collisions, owners, voters",
		Long: `Print the field's figures, aggregated by the database: the open conflicts by
status and type with their ages; time to decision (p50/p90) by type, by
strategy and by person; conflicts opened and decided per day; the agents
whose units collide most; whose units lose and win most; each owner's open
and overdue escalations; each voter's ballots cast and votes missed; the
fallbacks deadlines executed. The review screen's stats screen shows the same.

--since D counts what happened from D on: a date (2026-11-01), a time
(RFC 3339), or a span back from now (7d, 36h); 30d by default.
--json prints the figures as one object.`,
		Args: cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			since, err := parseSince(sinceText, time.Now())
			if err != nil {
				return err
			}
			s, err := svc.Stats(ctx, since)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, s)
			}
			fmt.Fprintln(a.stdout, statsview.Render(s, width, statsview.Styles{}))
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&sinceText, "since", "", "count from D: a date, an RFC 3339 time, or a span back from now such as 7d or 36h (default 30d)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.IntVar(&width, "width", 100, "draw the charts in at most N columns")
	return cmd
}

// parseSince reads --since: "" (the default window), a date, an RFC 3339
// time, or a span back from now ("7d", "36h").
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, usageErrorf("--since %q: give a date (2026-11-01), an RFC 3339 time, or a span such as 7d or 36h", clean(s))
}
