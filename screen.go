package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"arbiter/config"
	"arbiter/review"
	"arbiter/tui"

	tea "charm.land/bubbletea/v2"
)

// runScreen opens the review screen on svc's field for the person as
// ("": nobody, so the screen only shows the field).
func (a *app) runScreen(ctx context.Context, cfg config.Config, svc *review.Service, as string) error {
	if as != "" {
		if _, err := svc.Agent(ctx, as); err != nil {
			return err
		}
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
