package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/service/review"

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
		Short: "Deliver notices to people's channels: add, list, enable and remove hooks",
		Long: `A hook delivers every notice to one agent or person to a URL: a Standard
Webhooks receiver (format standard) or a Slack incoming webhook (format
slack). Deliveries are written with the notice and sent by arbiter deliver
(or arbiter serve), retried until delivered; a hook whose receiver answers
410 Gone is disabled until a human operator enables it again. See
docs/notifications.md.`,
		Args: noCommand,
	}
	cmd.AddCommand(callerNeeded(a.hooksAddCmd()), a.hooksListCmd(), callerNeeded(a.hooksEnableCmd()),
		callerNeeded(a.hooksRemoveCmd()))
	return cmd
}

func (a *app) hooksAddCmd() *cobra.Command {
	var forID, rawURL, format, events string
	var allowPrivate, asJSON bool
	cmd := &cobra.Command{
		Use:   "add --for ID --url URL [--format " + formatChoice() + "] [--events LIST]",
		Short: "Add a hook (a human operator); prints its signing secret once",
		Long: `Add a hook: every notice to --for (a registered agent or person) is delivered
to --url, as --format says:
` + formatHelp() + `
--events limits it to some events (comma-separated, e.g.
conflict.escalated,conflict.reminder).

The URL must be http or https. A host that is, or resolves to, a loopback,
private, link-local or other special-purpose address (docs/notifications.md
lists them) needs --allow-private: without it the deliverer checks the
address it connects to at every send, whatever the name resolves to then.
Only a human operator adds hooks. The signing secret (whsec_...) is
printed once, now: keep it in the receiver; afterwards only its prefix is
shown.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(forID) == "" || strings.TrimSpace(rawURL) == "" {
				return usageErrorf("hooks add needs --for ID and --url URL")
			}
			if _, ok := deliver.ChannelOf(model.HookFormat(format)); !ok {
				return usageErrorf("--format %q: use %s", format, deliver.FormatNames())
			}
			return nil
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			h := model.Hook{ID: model.NewHookID(), AgentID: strings.TrimSpace(forID), URL: strings.TrimSpace(rawURL),
				Format: model.HookFormat(format), Events: splitList(events), Secret: deliver.NewSecret(), AllowPrivate: allowPrivate}
			if err := deliver.CheckHook(ctx, h, nil); err != nil {
				return usageErrorf("--url: %v", err)
			}
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
	f.StringVar(&format, "format", string(deliver.Channels()[0].Format()), formatChoice())
	f.StringVar(&events, "events", "", "only these events, comma-separated (default all)")
	f.BoolVar(&allowPrivate, "allow-private", false, "allow a loopback, private, link-local or other special-purpose target, at every send")
	f.BoolVar(&asJSON, "json", false, "print JSON (with the secret, once)")
	return cmd
}

// formatChoice is the channels' names as a flag's choice: "standard|slack".
func formatChoice() string {
	var names []string
	for _, c := range deliver.Channels() {
		names = append(names, string(c.Format()))
	}
	return strings.Join(names, "|")
}

// formatHelp is one line per channel for hooks add --help.
func formatHelp() string {
	var b strings.Builder
	for _, c := range deliver.Channels() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.Format(), c.Describe())
	}
	return b.String()
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
			fmt.Fprintln(tw, "HOOK\tFOR\tFORMAT\tEVENTS\tURL\tSECRET\tSTATE")
			for _, h := range hooks {
				ev := "all"
				if len(h.Events) > 0 {
					ev = strings.Join(h.Events, ",")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clean(h.ID), clean(h.AgentID), clean(string(h.Format)), clean(ev),
					deliver.RedactURL(h.URL), model.SecretPrefix(h.Secret), hookState(h))
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// hookState is a hook's state as hooks list shows it.
func hookState(h model.Hook) string {
	state := "enabled"
	if !h.Enabled() {
		state = fmt.Sprintf("disabled %s: %s", h.DisabledAt.UTC().Format("2006-01-02 15:04 UTC"), clean(h.DisabledWhy))
	}
	if h.AllowPrivate {
		state += " (private addresses allowed)"
	}
	return state
}

func (a *app) hooksEnableCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "enable HOOK",
		Short: "Enable a disabled hook again (a human operator)",
		Long: `Enable a hook that was disabled because its receiver answered 410 Gone:
notices are queued for it and sent again from now on. The deliveries given
up when it was disabled stay dead; arbiter deliveries retry --all queues
them again.`,
		Args: exactArgs(1, "one hook id"),
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			if err := svc.HookEnable(ctx, cfg.As, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "enabled %s\n", clean(args[0]))
			return nil
		}),
	}
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
