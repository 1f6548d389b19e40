package cli

import (
	"context"
	"fmt"

	"arbiter/door/config"
	"arbiter/model"
	"arbiter/service/mcpmemory"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

// Another program's memory file stands behind the same review.Desk as a
// field: the commands that review (the screen, list, show, merge) open
// either; every other command refuses such a file (refuseForeign).

// deskCommand is fieldCommand for the reviewing commands: the configured
// file is opened as an arbiter field, or through its adapter when it is
// an mcp-memory-service database.
func (a *app) deskCommand(fn func(ctx context.Context, cfg config.Config, desk review.Desk, args []string) error) func(*cobra.Command, []string) error {
	return a.do(func(cmd *cobra.Command, args []string) error {
		cfg, err := a.fieldConfig(cmd)
		if err != nil {
			return err
		}
		if !mcpmemory.Recognize(cfg.DB) {
			return a.withField(cmd.Context(), cfg, func(ctx context.Context, svc *review.Service) error {
				if err := checkCaller(ctx, cmd, cfg, svc); err != nil {
					return err
				}
				return fn(ctx, cfg, svc, args)
			})
		}
		if cfg.DecisionsOut != "" {
			return model.Errorf("OPEN", model.CodeUnsupportedOperation, "leave out --decisions-out; --read-only opens it without writing",
				"%s is an mcp-memory-service database: decisions on it are written in place, never to a decisions file", cfg.DB)
		}
		d, err := mcpmemory.Open(cmd.Context(), cfg.DB, mcpmemory.Options{ReadOnly: cfg.ReadOnly, BusyTimeout: cfg.BusyTimeout, Owner: cfg.As})
		if err != nil {
			return err
		}
		defer d.Close()
		if why := d.ReadOnlyReason(); why != "" {
			fmt.Fprintf(a.stderr, "arbiter: opened read-only: %s\n", why)
		}
		return fn(cmd.Context(), cfg, d, args)
	})
}

// refuseForeign refuses, for the commands that need an arbiter field, a
// file that is another program's.
func refuseForeign(name string) error {
	if !mcpmemory.Recognize(name) {
		return nil
	}
	return model.Errorf("OPEN", model.CodeUnsupportedOperation, "open the review screen on it, or use list, show or merge",
		"%s is an mcp-memory-service database: only the screen, list, show and merge work on it", name)
}
