package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) inboxCmd() *cobra.Command {
	var (
		since  int64
		limit  int
		asJSON bool
	)
	var cmd *cobra.Command
	cmd = &cobra.Command{
		Use:   "inbox",
		Short: "List the notifications sent to --as",
		Long: `List the notifications sent to --as, oldest first. --since N lists only
those after notification N, so a poller passes the last id it saw.
--json prints an array of notifications.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			if since < 0 || limit < 0 {
				return usageErrorf("--since and --limit take 0 or more")
			}
			return nil
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			ns, err := svc.Inbox(ctx, cfg.As, since, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, ns)
			}
			next := asGiven(cmd) + " inbox"
			if limit > 0 {
				next += fmt.Sprintf(" --limit %d", limit)
			}
			printInbox(a.stdout, cfg.As, since, ns, next)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.Int64Var(&since, "since", 0, "list only notifications after this id")
	fl.IntVar(&limit, "limit", 0, "list at most N (0: all)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printInbox prints ns, and the command that lists what comes after
// them: next with --since.
func printInbox(w io.Writer, agent string, since int64, ns []model.Notification, next string) {
	if len(ns) == 0 {
		fmt.Fprintf(w, "no notifications for %s after #%d\n", clean(agent), since)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tEPOCH\tEVENT\tCONFLICT\tACTION\tSUMMARY")
	for _, n := range ns {
		conflict, action := "-", ""
		if n.ConflictID != nil {
			conflict = clean(*n.ConflictID)
		}
		if n.RequiresAction {
			action = "yes"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\n", n.ID, n.Epoch, clean(n.Event), conflict, action, clip(n.Summary, 100))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nnext: %s\n", clean(fmt.Sprintf("%s --since %d", next, ns[len(ns)-1].ID)))
}
