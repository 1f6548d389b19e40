package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"arbiter/config"
	"arbiter/model"
	"arbiter/review"
	"arbiter/tui"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
)

// runScreen opens the review screen on svc's field for the person as
// ("": nobody, so the screen only shows the field). Without a terminal to
// draw on (a pipe, a script, CI) it prints the queue instead.
func (a *app) runScreen(ctx context.Context, cfg config.Config, svc *review.Service, as string) error {
	if as != "" {
		if _, err := svc.Agent(ctx, as); err != nil {
			return err
		}
	}
	if !isTerminal(a.stdin) || !isTerminal(a.stdout) {
		return a.printScreen(ctx, cfg, svc, as)
	}
	if unknown := tui.UnknownKeys(cfg.Keys); len(unknown) > 0 {
		fmt.Fprintf(a.stderr, "arbiter: ignoring unknown key bindings in the configuration: %s\n", strings.Join(unknown, ", "))
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	m := tui.New(svc, tui.Options{Field: cfg.DB, As: as, Theme: cfg.Theme, NoColor: noColor, Keys: cfg.Keys})
	_, err := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(a.stdin), tea.WithOutput(a.stdout)).Run()
	if err == tea.ErrInterrupted || err == tea.ErrProgramKilled {
		return nil
	}
	return err
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// printScreen is the screen for a pipe: the review queue, as `arbiter list`
// prints it, and how to decide from the command line.
func (a *app) printScreen(ctx context.Context, cfg config.Config, svc *review.Service, as string) error {
	rows, err := a.printQueue(ctx, svc, model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge})
	if err != nil {
		return err
	}
	id, who := "CONFLICT", "ID"
	if len(rows) > 0 {
		id = rows[0].ID
	}
	if as != "" {
		who = as
	}
	prefix := fmt.Sprintf("arbiter --db %s --as %s", shellQuote(cfg.DB), shellQuote(who))
	fmt.Fprintf(a.stdout, "\nNo terminal to open the review screen on. Decide from the command line:\n")
	for _, cmd := range []string{
		"show " + shellQuote(id),
		"merge " + shellQuote(id) + " --strategy STRATEGY [--winner A|B] --rationale TEXT --expect-version N",
		"vote " + shellQuote(id) + " --for A|B --rationale TEXT",
	} {
		fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+" "+cmd))
	}
	return nil
}
