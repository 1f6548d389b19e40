package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/store"

	"github.com/spf13/cobra"
)

func (a *app) deliverCmd() *cobra.Command {
	var once, quiet bool
	var open string
	var lease, sendTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "deliver [--once]",
		Short: "Send the field's deliveries to their hooks until stopped",
		Long: `Send the field's deliveries to their hooks: each notice within a fraction of
a second of its commit, failed tries again with exponential backoff and
jitter from about a second, later if the receiver's Retry-After asks
(docs/notifications.md has the schedule), until interrupted. Sends to one
hook never wait for another's. --once sends what is due and exits (for
cron). Several deliverers may run on one field (arbiter serve runs one
too): each delivery is claimed before it is sent, for --lease, renewed
every third of it while the send runs.

A field that is busy, whose disk is full or whose server is out of reach
is waited out (one line on stderr each time); arbiter deliver stops only
when interrupted, or when the field is gone, read-only, of a format it
does not know, or refuses it. On PostgreSQL, --as names the human operator
it acts as when a receiver's 410 disables a hook.

One line per try goes to stderr (--quiet: none); URLs without their
secret part, secrets never.`,
		Args: cobra.NoArgs,
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			if lease < deliver.MinLease {
				fmt.Fprintf(a.stderr, "arbiter: --lease %s is raised to %s: a claim is renewed every third of its lease while "+
					"its send runs, and a renewal (a write) must land before the lease runs out\n", lease, deliver.MinLease)
				lease = deliver.MinLease
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.withStore(ctx, cfg, func(ctx context.Context, st store.Field) error {
				opts := deliver.Options{Open: open, Lease: lease, SendTimeout: sendTimeout, Actor: cfg.As, Trouble: a.stderr}
				if !quiet {
					opts.Log = a.stderr
				}
				if once {
					rep, err := deliver.Once(ctx, st, opts)
					fmt.Fprintf(a.stdout, "delivered %d, retrying %d, dead %d\n", rep.Delivered, rep.Retrying, rep.Dead)
					return err
				}
				fmt.Fprintf(a.stderr, "arbiter: delivering from %s until interrupted (%s)\n", clean(st.Name()), time.Now().UTC().Format(time.RFC3339))
				err := deliver.Run(ctx, st, opts)
				if err == nil {
					return nil
				}
				// Only what waiting will not mend ends a deliverer: say so in
				// one line.
				fmt.Fprintf(a.stderr, "arbiter: deliver stops: %s\n", clean(err.Error()))
				if _, ok := model.AsError(err); ok {
					return &exitStatus{exitProtocol}
				}
				return &exitStatus{exitFailure}
			})
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&once, "once", false, "send what is due and exit")
	f.BoolVar(&quiet, "quiet", false, "print nothing per try")
	f.DurationVar(&lease, "lease", deliver.DefaultLease, "how long a claim holds unless renewed (at least 5s): a deliverer killed mid-send leaves its claims to others after this")
	f.DurationVar(&sendTimeout, "send-timeout", deliver.DefaultSendTimeout, "how long one try may take, connection to answer")
	f.StringVar(&open, "open", "arbiter", "the command that opens the field, for slack messages (e.g. \"ssh ops@host -t arbiter\")")
	return cmd
}
