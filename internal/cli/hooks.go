package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"arbiter/config"
	"arbiter/internal/deliver"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/review"
	"arbiter/store"

	"github.com/spf13/cobra"
)

// hookJSON is a hook as hooks list --json prints it: the secret by its
// prefix only, the URL without its path's secret part.
type hookJSON struct {
	model.Hook
	URL    string `json:"url"`
	Secret string `json:"secret_prefix"`
}

func toHookJSON(h model.Hook) hookJSON {
	return hookJSON{Hook: h, URL: deliver.RedactURL(h.URL), Secret: model.SecretPrefix(h.Secret)}
}

func (a *app) hooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Deliver notices to people's channels: add, list and remove hooks",
		Long: `A hook delivers every notice to one agent or person to a URL: a Standard
Webhooks receiver (format standard) or a Slack incoming webhook (format
slack). Deliveries are written with the notice and sent by arbiter deliver
(or arbiter serve), retried until delivered; see docs/notifications.md.`,
		Args: noCommand,
	}
	cmd.AddCommand(callerNeeded(a.hooksAddCmd()), a.hooksListCmd(), callerNeeded(a.hooksRemoveCmd()))
	return cmd
}

func (a *app) hooksAddCmd() *cobra.Command {
	var forID, rawURL, format, events string
	var allowPrivate, asJSON bool
	cmd := &cobra.Command{
		Use:   "add --for ID --url URL [--format standard|slack] [--events LIST]",
		Short: "Add a hook (a human operator); prints its signing secret once",
		Long: `Add a hook: every notice to --for (a registered agent or person) is delivered
to --url, as --format says: standard (Standard Webhooks: signed webhook-id,
webhook-timestamp and webhook-signature headers, a JSON body) or slack (a
Slack incoming-webhook message). --events limits it to some events
(comma-separated, e.g. conflict.escalated,conflict.reminder).

The URL must be http or https; one that is or resolves to a loopback,
private or link-local address needs --allow-private. Only a human operator
adds hooks. The signing secret (whsec_...) is printed once, now: keep it in
the receiver; afterwards only its prefix is shown.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(forID) == "" || strings.TrimSpace(rawURL) == "" {
				return usageErrorf("hooks add needs --for ID and --url URL")
			}
			if !model.HookFormat(format).Valid() {
				return usageErrorf("--format %q: use standard or slack", format)
			}
			return nil
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			if err := deliver.CheckURL(ctx, rawURL, allowPrivate); err != nil {
				return usageErrorf("--url: %v", err)
			}
			h := model.Hook{ID: model.NewHookID(), AgentID: strings.TrimSpace(forID), URL: strings.TrimSpace(rawURL),
				Format: model.HookFormat(format), Events: splitList(events), Secret: deliver.NewSecret()}
			h, err := svc.HookAdd(ctx, cfg.As, h)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, struct {
					hookJSON
					Secret string `json:"secret"`
				}{toHookJSON(h), h.Secret})
			}
			fmt.Fprintf(a.stdout, "%s  for %s  %s  %s\n", clean(h.ID), clean(h.AgentID), h.Format, deliver.RedactURL(h.URL))
			fmt.Fprintf(a.stdout, "signing secret (shown once; only %s from now on):\n  %s\n", model.SecretPrefix(h.Secret), h.Secret)
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&forID, "for", "", "the agent or person whose notices the hook delivers")
	f.StringVar(&rawURL, "url", "", "where to deliver: http:// or https://")
	f.StringVar(&format, "format", string(model.FormatStandard), "standard (Standard Webhooks) or slack")
	f.StringVar(&events, "events", "", "only these events, comma-separated (default all)")
	f.BoolVar(&allowPrivate, "allow-private", false, "allow a loopback, private or link-local target")
	f.BoolVar(&asJSON, "json", false, "print JSON (with the secret, once)")
	return cmd
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (a *app) hooksListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the field's hooks (secrets by prefix only)",
		Args:  cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			hooks, err := svc.Hooks(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				out := make([]hookJSON, 0, len(hooks))
				for _, h := range hooks {
					out = append(out, toHookJSON(h))
				}
				return jsonout.Write(a.stdout, out)
			}
			if len(hooks) == 0 {
				fmt.Fprintln(a.stdout, "no hooks: `arbiter hooks add --for ID --url URL` adds one")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "HOOK\tFOR\tFORMAT\tEVENTS\tURL\tSECRET")
			for _, h := range hooks {
				ev := "all"
				if len(h.Events) > 0 {
					ev = strings.Join(h.Events, ",")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", clean(h.ID), clean(h.AgentID), h.Format, clean(ev),
					deliver.RedactURL(h.URL), model.SecretPrefix(h.Secret))
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) hooksRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove HOOK",
		Short: "Remove a hook and its deliveries (a human operator)",
		Args:  exactArgs(1, "one hook id"),
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			if err := svc.HookRemove(ctx, cfg.As, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %s\n", clean(args[0]))
			return nil
		}),
	}
}

func (a *app) deliveriesCmd() *cobra.Command {
	var asJSON, dead bool
	var limit int
	cmd := &cobra.Command{
		Use:   "deliveries [retry ID|--all]",
		Short: "List the deliveries of notices to hooks; retry dead ones",
		Long: `List the deliveries of notices to hooks, newest first: pending (waiting
for its next try), delivered, or dead (refused with a 4xx other than 408
and 429, or failing after the last try). --dead lists only the dead ones;
arbiter deliveries retry ID (or --all) queues them again.`,
		Args: noCommand,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			q := model.DeliveryQuery{Limit: limit}
			if dead {
				q.State = model.DeliveryDead
			}
			ds, err := svc.Deliveries(ctx, q)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, ds)
			}
			if len(ds) == 0 {
				fmt.Fprintln(a.stdout, "no deliveries")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DELIVERY\tHOOK\tFOR\tEVENT\tSTATE\tTRIES\tNEXT / LAST ERROR")
			for _, d := range ds {
				last := clip(d.LastError, 60)
				if d.State == model.DeliveryPending {
					last = d.NextAt.UTC().Format("15:04:05") + " " + last
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", clean(d.ID), clean(d.HookID), clean(d.Notice.AgentID),
					clean(d.Notice.Event), d.State, d.Attempts, last)
			}
			return tw.Flush()
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&dead, "dead", false, "only the dead deliveries")
	f.IntVar(&limit, "limit", 100, "at most this many (0: all)")
	cmd.AddCommand(callerNeeded(a.deliveriesRetryCmd()))
	return cmd
}

func (a *app) deliveriesRetryCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "retry ID|--all",
		Short: "Queue a dead delivery (or all of them) again (a human operator)",
		Args: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) && len(args) <= 1 {
				return fmt.Errorf("retry takes one delivery id or --all")
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			n, err := svc.DeliveryRetry(ctx, cfg.As, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d queued again\n", n)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "every dead delivery")
	return cmd
}

func (a *app) deliverCmd() *cobra.Command {
	var once, quiet bool
	var open string
	var lease time.Duration
	cmd := &cobra.Command{
		Use:   "deliver [--once]",
		Short: "Send the field's deliveries to their hooks until stopped",
		Long: `Send the field's deliveries to their hooks: each notice within a fraction of
a second of its commit, failed tries again with exponential backoff and
jitter from about a second (docs/notifications.md has the schedule), until
interrupted. --once sends what is due and exits (for cron). Several
deliverers may run on one field (arbiter serve runs one too): each
delivery is claimed before it is sent. One line per try goes to stderr
(--quiet: none); URLs without their secret part, secrets never.`,
		Args: cobra.NoArgs,
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return a.withStore(ctx, cfg, func(ctx context.Context, st store.Field) error {
				opts := deliver.Options{Open: open, Lease: lease}
				if !quiet {
					opts.Log = a.stderr
				}
				if once {
					rep, err := deliver.Once(ctx, st, opts)
					fmt.Fprintf(a.stdout, "delivered %d, retrying %d, dead %d\n", rep.Delivered, rep.Retrying, rep.Dead)
					return err
				}
				fmt.Fprintf(a.stderr, "arbiter: delivering from %s until interrupted (%s)\n", clean(st.Name()), time.Now().UTC().Format(time.RFC3339))
				return deliver.Run(ctx, st, opts)
			})
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&once, "once", false, "send what is due and exit")
	f.BoolVar(&quiet, "quiet", false, "print nothing per try")
	f.DurationVar(&lease, "lease", time.Minute, "how long a claim holds: a deliverer killed mid-send leaves its claims to others after this")
	f.StringVar(&open, "open", "arbiter", "the command that opens the field, for slack messages (e.g. \"ssh ops@host -t arbiter\")")
	return cmd
}
