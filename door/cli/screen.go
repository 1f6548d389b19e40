package cli

import (
	"arbiter/store/field"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"arbiter/door/config"
	"arbiter/door/tui"
	"arbiter/model"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
)

// runScreen opens the review screen on svc's field for the person as
// ("": nobody, so the screen only shows the field). Without a terminal to
// draw on (a pipe, a script, CI) it prints the queue instead.
func (a *app) runScreen(ctx context.Context, cfg config.Config, svc review.Desk, as string) error {
	if as != "" {
		if _, err := svc.Agent(ctx, as); err != nil {
			return err
		}
	}
	if !isTerminal(a.stdin) || !isTerminal(a.stdout) {
		return a.printScreen(ctx, cfg, svc, as)
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	opt := tui.Options{Field: field.Redact(cfg.DB), As: as, Theme: cfg.Theme, NoColor: noColor, Keys: cfg.Keys,
		Views: cfg.Views, SweepEvery: sweepEvery}
	// The screen's commands stop when it ends: Run cancels their context.
	err := tui.Run(ctx, svc, opt, tea.WithInput(a.stdin), tea.WithOutput(a.stdout))
	if err == tea.ErrInterrupted || err == tea.ErrProgramKilled {
		return nil
	}
	return err
}

// sweepEvery is how often the screen does what the field's deadlines ask
// for, on a field it may write.
const sweepEvery = 5 * time.Second

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// printScreen is the screen for a pipe: the review queue, as `arbiter list`
// prints it, and how to decide from the command line.
func (a *app) printScreen(ctx context.Context, cfg config.Config, svc review.Desk, as string) error {
	rows, err := a.printQueue(ctx, svc, model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nNo terminal to open the review screen on. ")
	if as == "" {
		prefix := fmt.Sprintf("arbiter --db %s --as ID", shellQuote(field.Redact(cfg.DB)))
		fmt.Fprintf(a.stdout, "Say who you are with --as to decide; from the command line:\n")
		fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+" show CONFLICT"))
		fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+" merge CONFLICT --strategy STRATEGY [--winner A|B] --rationale TEXT --expect-version N"))
		fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+" vote CONFLICT --for A|B --rationale TEXT"))
		return nil
	}
	return a.printTurn(ctx, cfg, svc, as, rows)
}

// printTurn says what as can do first in the queue rows, as commands
// that work for them; or, when nothing there is theirs to do, who can.
func (a *app) printTurn(ctx context.Context, cfg config.Config, svc review.Desk, as string, rows []model.ConflictSummary) error {
	me, err := svc.Agent(ctx, as)
	if err != nil {
		return err
	}
	p, err := svc.Policy(ctx)
	if err != nil {
		return err
	}
	voted, err := svc.VotedOn(ctx, as)
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("arbiter --db %s --as %s ", shellQuote(field.Redact(cfg.DB)), shellQuote(as))
	for _, r := range rows {
		id := shellQuote(r.ID)
		switch model.TurnOf(p, me, r, voted[r.ID]) {
		case model.TurnDecide:
			fmt.Fprintf(a.stdout, "Decide %s from the command line:\n", clean(r.ID))
			fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+"show "+id))
			fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+"merge "+id+fmt.Sprintf(" --strategy STRATEGY [--winner A|B] --rationale TEXT --expect-version %d", r.Version)))
			return nil
		case model.TurnVote:
			fmt.Fprintf(a.stdout, "Vote on %s from the command line:\n", clean(r.ID))
			fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+"show "+id))
			fmt.Fprintf(a.stdout, "  %s\n", clean(prefix+"vote "+id+" --for A|B --rationale TEXT"))
			return nil
		}
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.stdout, "Nothing waits for people.\n")
		return nil
	}
	agents, err := svc.Agents(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Nothing in the queue is %s's to decide or vote on:\n", clean(as))
	// One line for the conflicts that wait for the same people.
	var whos []string
	waiting := map[string][]string{}
	for _, r := range rows {
		who := model.WhoActs(p, agents, r)
		if waiting[who] == nil {
			whos = append(whos, who)
		}
		waiting[who] = append(waiting[who], r.ID)
	}
	for _, who := range whos {
		ids := waiting[who]
		verb := "waits"
		if len(ids) > 1 {
			verb = "wait"
		}
		if len(ids) > 3 {
			ids = append(ids[:3:3], fmt.Sprintf("%d more", len(ids)-3))
		}
		fmt.Fprintf(a.stdout, "  %s %s for %s\n", clean(strings.Join(ids, ", ")), verb, clean(who))
	}
	return nil
}
