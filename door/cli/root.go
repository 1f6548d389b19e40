// Package cli is arbiter's command line: the cobra commands, their flags,
// what they print and their exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailure  = 1 // anything else: a field that cannot be opened, a bad config file
	exitUsage    = 2 // the request is wrong: the command line, or a value the field calls malformed
	exitProtocol = 3 // the field refused a well-formed request with a protocol error
)

// app is one run of arbiter: its streams, and whether a command's own code
// has started. Errors before that are usage errors: cobra's refusals of
// the command line, and the flag checks commands make in PreRunE.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	started        bool
}

// Run executes the command line args with the given streams and returns
// the process's exit code. ctx ends the command early (an interrupt).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	return a.report(cmd, err)
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "arbiter",
		Short: "Review and settle the conflicts of an Akashik field",
		Long: `arbiter keeps an Akashik field (a SQLite file) and settles its conflicts:
agents record units; a contradicts relation opens a conflict; agents and people
merge it with a strategy, put it to a vote, or escalate it to a human operator.

Without a command, arbiter opens the review screen on the configured field,
deciding and voting as --as; without --as the screen only shows the field.

Exit codes: 0 success, 1 failure (e.g. the field cannot be opened),
2 usage error, 3 the field refused the operation (a protocol error).`,
		Args:          noCommand,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: a.deskCommand(func(ctx context.Context, cfg config.Config, svc review.Desk, _ []string) error {
			return a.runScreen(ctx, cfg, svc, cfg.As)
		}),
	}
	pf := root.PersistentFlags()
	pf.String("db", "", "the field: a SQLite file, or a PostgreSQL connection string such as postgres://user@host/db (env ARBITER_DB)")
	pf.String("as", "", "the registered agent or person to act as (env ARBITER_AS)")
	pf.Bool("read-only", false, "open the field without writing to it (env ARBITER_READ_ONLY)")
	pf.String("listen-db", "", "a direct connection to the field's PostgreSQL server, used only to hear of changes when --db goes through a connection pooler (env ARBITER_LISTEN_DB)")
	pf.String("decisions-out", "", "append decisions to FILE for arbiter apply instead of writing them to the field, which is opened read-only (env ARBITER_DECISIONS_OUT)")
	pf.String(config.ConfigFlag, "", "config file (default $XDG_CONFIG_HOME/arbiter/config.yaml)")
	root.SetFlagErrorFunc(plainFlagError)
	root.AddCommand(a.initCmd(), a.demoCmd(), a.registerCmd(), callerNeeded(a.recordCmd()), a.listCmd(),
		a.showCmd(), a.agentsCmd(), callerNeeded(a.mergeCmd()), callerNeeded(a.voteCmd()),
		callerNeeded(a.reopenCmd()), callerNeeded(a.inboxCmd()))
	root.AddCommand(callerNeeded(a.approveCmd()), callerNeeded(a.reworkCmd()), a.sweepCmd(), a.policyCmd())
	root.AddCommand(a.importCmd(), a.exportCmd(), a.applyCmd(), a.copyCmd())
	root.AddCommand(a.hooksCmd(), a.deliveriesCmd(), a.deliverCmd())
	root.AddCommand(callerNeeded(a.mcpCmd()), a.serveCmd(), a.keysCmd(), a.tokensCmd())
	root.AddCommand(a.genCmd(), a.statsCmd(), a.detectCmd())
	root.AddCommand(a.forkCmd(), a.joinCmd(), a.versionCmd())
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	return root
}

// needsCaller is the annotation of a command that acts as someone.
const needsCaller = "arbiter-needs-caller"

// callerNeeded marks cmd as acting as --as: without a caller it is a
// usage error (exit 2), found before the field is opened.
func callerNeeded(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[needsCaller] = "yes"
	return cmd
}

// do marks the start of a command's own code, so that report can tell
// cobra's refusals of the command line from the command's failures.
func (a *app) do(fn func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.started = true
		return fn(cmd, args)
	}
}

// usageError is a command line arbiter cannot act on.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitStatus ends a command that has already said everything it had to
// with an exit code other than 0.
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// noField is the refusal of cmd run without a field. After `arbiter
// demo`, a command that opens a field names the demo's, which only --db
// opens.
func noField(cmd *cobra.Command) error {
	if path, err := demoPath(nil); err == nil && cmd.Name() != "init" && cmd.Name() != "gen" {
		if _, err := os.Stat(path); err == nil {
			return usageErrorf("no field given: use --db FILE or ARBITER_DB (the demo's field is --db %s)", path)
		}
	}
	return usageErrorf("no field given: use --db FILE or ARBITER_DB")
}

// report prints err, if any, and returns the exit code. A protocol error
// goes to stdout as its JSON object when the command was asked for JSON;
// every other error is one line on stderr.
func (a *app) report(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	var es *exitStatus
	if errors.As(err, &es) {
		return es.code
	}
	if errors.Is(err, errInterrupted) || (errors.Is(err, context.Canceled) && cmd.Context() != nil && cmd.Context().Err() != nil) {
		fmt.Fprintf(a.stderr, "arbiter: %s\n", err.Error())
		return exitInterrupted
	}
	var ue *usageError
	if !a.started || errors.As(err, &ue) {
		fmt.Fprintf(a.stderr, "arbiter: %s (see '%s --help')\n", clean(err.Error()), cmd.CommandPath())
		return exitUsage
	}
	if pe, ok := model.AsError(err); ok {
		if pe.SuggestedAction == "" {
			if hint := notFoundHint[pe.Code]; hint != "" {
				c := *pe
				c.SuggestedAction = hint
				pe = &c
			}
		}
		code := exitProtocol
		if pe.Code.Malformed() {
			code = exitUsage // the request was wrong, whoever found it out
		}
		if wantsJSON(cmd) {
			if werr := jsonout.Write(a.stdout, pe); werr == nil {
				return code
			}
		}
		fmt.Fprintf(a.stderr, "arbiter: %s\n", clean(pe.Error()))
		return code
	}
	fmt.Fprintf(a.stderr, "arbiter: %s\n", clean(err.Error()))
	return exitFailure
}

// notFoundHint is the next step for an id the field does not have, where
// the error did not say one: how to list what it has.
var notFoundHint = map[model.Code]string{
	model.CodeConflictNotFound: "list the conflicts with `arbiter list --status all`",
	model.CodeUnitNotFound:     "`arbiter show CONFLICT` names the units of a conflict; `arbiter list --status all` lists the conflicts",
}

func wantsJSON(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("json")
	return f != nil && f.Value.String() == "true"
}

// config loads the settings for cmd: its flags, the environment and the
// config file.
func (a *app) config(cmd *cobra.Command) (config.Config, error) {
	return config.Load(cmd.Flags())
}

// fieldConfig loads cmd's settings, which must name a field, and a
// caller if cmd acts as one (callerNeeded).
func (a *app) fieldConfig(cmd *cobra.Command) (config.Config, error) {
	cfg, err := a.config(cmd)
	switch {
	case err != nil:
	case cfg.DB == "":
		err = noField(cmd)
	case cfg.As == "" && cmd.Annotations[needsCaller] != "":
		err = usageErrorf("%s acts as someone: say who with --as ID (or ARBITER_AS); `arbiter agents` lists who is registered", cmd.CommandPath())
	}
	return cfg, err
}

// withField opens the configured field, runs fn on its rules and closes
// it. On a read-only field, decisions go to the decisions file if one is
// configured.
func (a *app) withField(ctx context.Context, cfg config.Config, fn func(context.Context, *review.Service) error) error {
	return a.withStore(ctx, cfg, func(ctx context.Context, st store.Field) error {
		return fn(ctx, review.New(st).WithDecisionsOut(cfg.DecisionsOut).WithSweeper(cfg.As))
	})
}

// withStore opens the configured field, runs fn on it and closes it.
func (a *app) withStore(ctx context.Context, cfg config.Config, fn func(context.Context, store.Field) error) error {
	opt := store.Options{ReadOnly: cfg.ReadOnly, BusyTimeout: cfg.BusyTimeout, ListenDB: cfg.ListenDB}
	if cfg.DecisionsOut != "" {
		// Decisions go to the file, as asked, even on a field that could
		// take them: nothing is written to the field itself.
		opt.ReadOnly = true
		opt.ReadOnlyWhy = "decisions go to " + cfg.DecisionsOut + " (--decisions-out)"
		opt.ReadOnlyHint = "leave out --decisions-out to write to the field itself"
	}
	if err := refuseForeign(cfg.DB); err != nil {
		return err
	}
	st, err := field.Open(ctx, cfg.DB, opt)
	if err != nil {
		return err
	}
	defer st.Close()
	if st.ReadOnlyReason() != "" {
		fmt.Fprintf(a.stderr, "arbiter: opened read-only: %s\n", st.ReadOnlyReason())
	}
	return fn(ctx, st)
}

// fieldCommand is the shape of most commands: load the settings, open the
// field, act on it.
func (a *app) fieldCommand(fn func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error) func(*cobra.Command, []string) error {
	return a.do(func(cmd *cobra.Command, args []string) error {
		cfg, err := a.fieldConfig(cmd)
		if err != nil {
			return err
		}
		return a.withField(cmd.Context(), cfg, func(ctx context.Context, svc *review.Service) error {
			if err := checkCaller(ctx, cmd, cfg, svc); err != nil {
				return err
			}
			return fn(ctx, cfg, svc, args)
		})
	})
}

// checkCaller refuses a --as that names nobody registered, whether or not
// the command acts as them: a reader mistyping their name is told at
// once, with the names they may have meant. register and mcp are left to
// check their own caller (the first person registered has nobody to act
// as; mcp says it in its own words).
func checkCaller(ctx context.Context, cmd *cobra.Command, cfg config.Config, svc *review.Service) error {
	if cfg.As == "" || cmd.Name() == "register" || cmd.Name() == "mcp" {
		return nil
	}
	_, err := svc.Agent(ctx, cfg.As)
	return err
}

// writingCommand is fieldCommand for a command that writes to the field:
// the field's deadlines are swept first (sweepFirst).
func (a *app) writingCommand(fn func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error) func(*cobra.Command, []string) error {
	return a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
		a.sweepFirst(ctx, svc)
		return fn(ctx, cfg, svc, args)
	})
}

// exactArgs is cobra.ExactArgs naming what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return fmt.Errorf("%s takes %s (got %d arguments)", cmd.Name(), what, len(args))
		}
		return nil
	}
}
