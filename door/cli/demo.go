package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) demoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo [--db FILE]",
		Short: "Open the review screen on the demo field, creating it the first time",
		Long: `Open the review screen on the demo field as its human operator. The field
is created with the demo the first time, at --db FILE or by default at
$XDG_DATA_HOME/arbiter/demo.db (~/.local/share/arbiter/demo.db). Only the
--db flag chooses it: ARBITER_DB and the config file are not used, so that
the demo never opens your own field.`,
		Args: cobra.NoArgs,
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.config(cmd)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if cfg.DB, err = demoPath(cmd); err != nil {
				return err
			}
			if _, err := os.Stat(cfg.DB); errors.Is(err, os.ErrNotExist) {
				if err := os.MkdirAll(filepath.Dir(cfg.DB), 0o755); err != nil {
					return err
				}
				if err := createField(ctx, a.stdout, cfg.DB, demo.Policy(), true); err != nil {
					return err
				}
				fmt.Fprintln(a.stdout)
			}
			return a.withField(ctx, cfg, func(ctx context.Context, svc *review.Service) error {
				if _, err := svc.Agent(ctx, demo.Operator); model.HasCode(err, model.CodeAgentNotRegistered) {
					return fmt.Errorf("%s is not the demo's field (it has no %s): run arbiter demo without --db, or with --db naming a new file; "+
						"open your own field with arbiter --db %s --as ID", cfg.DB, demo.Operator, cfg.DB)
				}
				return a.runScreen(ctx, cfg, svc, demo.Operator)
			})
		}),
	}
}

// demoPath is the demo field's file: --db if given, else
// $XDG_DATA_HOME/arbiter/demo.db or ~/.local/share/arbiter/demo.db.
// cmd may be nil: the default place.
func demoPath(cmd *cobra.Command) (string, error) {
	if cmd != nil {
		if f := cmd.Flags().Lookup("db"); f != nil && f.Changed && f.Value.String() != "" {
			return f.Value.String(), nil
		}
	}
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" {
		return filepath.Join(dir, "arbiter", "demo.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no place for the demo field (%v): use --db FILE", err)
	}
	return filepath.Join(home, ".local", "share", "arbiter", "demo.db"), nil
}
