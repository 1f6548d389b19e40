package main

import (
	"context"
	"fmt"

	"arbiter/config"
	"arbiter/model"
	"arbiter/review"
)

// runScreen opens the review screen on svc's field for the operator as.
//
// The screen is not built yet: until it is, this prints the review queue
// (what `arbiter list` prints) and how to decide from the command line.
// Wiring in the screen means changing this function only.
func (a *app) runScreen(ctx context.Context, cfg config.Config, svc *review.Service, as string) error {
	if _, err := svc.Agent(ctx, as); err != nil {
		return err
	}
	rows, err := a.printQueue(ctx, svc, model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge})
	if err != nil {
		return err
	}
	id := "CONFLICT"
	if len(rows) > 0 {
		id = rows[0].ID
	}
	prefix := fmt.Sprintf("arbiter --db %s --as %s", shellQuote(cfg.DB), shellQuote(as))
	fmt.Fprintf(a.stdout, "\nThe review screen is not built yet. Decide from the command line:\n")
	fmt.Fprintf(a.stdout, "  %s\n", clean(fmt.Sprintf("%s show %s", prefix, shellQuote(id))))
	fmt.Fprintf(a.stdout, "  %s\n", clean(fmt.Sprintf("%s merge %s --strategy STRATEGY [--winner A|B] --rationale TEXT --expect-version N", prefix, shellQuote(id))))
	fmt.Fprintf(a.stdout, "  %s\n", clean(fmt.Sprintf("%s vote %s --for A|B --rationale TEXT", prefix, shellQuote(id))))
	return nil
}
