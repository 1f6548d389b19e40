package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) listCmd() *cobra.Command {
	var (
		statuses []string
		sort     string
		limit    int
		search   string
		asJSON   bool
		q        model.ListQuery
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List conflicts: by default those waiting for people",
		Long: `List conflicts, oldest first. By default the review queue: escalated
conflicts and those put to a vote. --status all lists every conflict.
--search keeps the conflicts that match every word of it, as the review
screen's filter does: in the id, status, type, units' ids, authors or
description, or as the start of a word of either unit's text.
--json prints an array of conflict summaries.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) (err error) {
			q = model.ListQuery{Sort: model.Sort(sort), Limit: limit, Search: search}
			if q.Statuses, err = parseStatuses(statuses); err != nil {
				return err
			}
			if q.Sort != model.SortAge && q.Sort != model.SortType {
				return usageErrorf("--sort %q: use age or type", sort)
			}
			if limit < 0 {
				return usageErrorf("--limit %d: use 0 (no limit) or more", limit)
			}
			return nil
		},
		RunE: a.deskCommand(func(ctx context.Context, _ config.Config, svc review.Desk, _ []string) error {
			if !asJSON {
				_, err := a.printQueue(ctx, svc, q)
				return err
			}
			return jsonout.WriteArray(a.stdout, func(yield func(model.ConflictSummary)) error {
				return svc.EachConflict(ctx, q, func(s model.ConflictSummary) error { yield(s); return nil })
			}, jsonout.AppendSummary)
		}),
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&statuses, "status", statusNames(model.ReviewStatuses),
		"statuses to list, comma-separated, or all ("+strings.Join(statusNames(model.ConflictStatuses), ", ")+")")
	fl.StringVar(&sort, "sort", string(model.SortAge), "age (oldest first) or type")
	fl.IntVar(&limit, "limit", 0, "list at most N conflicts (0: all)")
	fl.StringVar(&search, "search", "", "keep the conflicts matching every word of TEXT (ids, status, type, agents, description, units' text)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// parseStatuses reads --status; "all" is every status (no filter).
func parseStatuses(names []string) ([]model.ConflictStatus, error) {
	var out []model.ConflictStatus
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "all":
			return nil, nil
		case n == "":
			continue
		case !model.ConflictStatus(n).Valid():
			return nil, usageErrorf("--status %q: use all or some of %s", n,
				strings.Join(statusNames(model.ConflictStatuses), ", "))
		}
		out = append(out, model.ConflictStatus(n))
	}
	if len(out) == 0 {
		return nil, usageErrorf("--status: name at least one status, or all")
	}
	return out, nil
}

func statusNames(ss []model.ConflictStatus) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// printQueue prints the counts per status and a table of the conflicts q
// selects, and returns them.
func (a *app) printQueue(ctx context.Context, svc review.Desk, q model.ListQuery) ([]model.ConflictSummary, error) {
	counts, err := svc.Counts(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := svc.List(ctx, q)
	if err != nil {
		return nil, err
	}
	header := make([]string, 0, len(statusOrder))
	selected := 0
	for _, s := range statusOrder {
		header = append(header, fmt.Sprintf("%s %d", s, counts[s]))
		if len(q.Statuses) == 0 || slices.Contains(q.Statuses, s) {
			selected += counts[s]
		}
	}
	fmt.Fprintln(a.stdout, strings.Join(header, " · "))
	which := "(any status)"
	if len(q.Statuses) > 0 {
		which = "(" + strings.Join(statusNames(q.Statuses), " or ") + ")"
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.stdout, "no conflicts %s\n", which)
		return rows, nil
	}
	fmt.Fprintln(a.stdout)
	now := time.Now()
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tSTATUS\tAGE\tAGENTS (A vs B)\tTALLY\tOWNER\tDUE\tDESCRIPTION")
	for _, r := range rows {
		owner, due := routeColumns(r.Conflict, now)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s vs %s\t%s\t%s\t%s\t%s\n", clip(r.ID, 24), clean(string(r.Type)), r.Status,
			age(r.DetectedAt, now), clip(r.AgentA, 20), clip(r.AgentB, 20), tally(r.Tally), owner, due, clip(r.Description, 60))
	}
	tw.Flush()
	if len(rows) < selected {
		fmt.Fprintf(a.stdout, "\nshowing %d of %d conflicts %s\n", len(rows), selected, which)
	}
	return rows, nil
}

// routeColumns are the queue's OWNER and DUE: who it is routed to ("any"
// for any human operator, "voters" for a vote) and the time left ("2h
// 10m", "overdue"); "-" for what is not routed or has no deadline.
func routeColumns(c model.Conflict, now time.Time) (string, string) {
	r := c.Route
	if r == nil {
		return "-", "-"
	}
	owner, due := "any", r.DueIn(now)
	switch {
	case r.Owner != "":
		owner = clip(r.Owner, 20)
	case c.Status == model.StatusPendingVote:
		owner = "voters"
	case c.Status == model.StatusResolving:
		owner = "authors"
	}
	if due == "" {
		due = "-"
	}
	return owner, due
}

// tally is "2/3": ballots cast of the quorum; "-" when there is no vote.
func tally(t *model.Tally) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", t.Total(), t.Quorum)
}
