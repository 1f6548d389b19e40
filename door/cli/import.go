package cli

import (
	"arbiter/store/field"
	"context"
	"fmt"
	"io"
	"time"

	"arbiter/internal/akashiklog"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/interop"
	"arbiter/service/review"
	"arbiter/store"

	"github.com/spf13/cobra"
)

func (a *app) importCmd() *cobra.Command {
	var (
		from   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "import --from akashik-jsonl LOG",
		Short: "Import an Akashik SDK event log into the field",
		Long: `Import the Akashik SDK's JSONL event log LOG into the field --db, as one
transaction: its agents (kind agent, authority 4), its entries as memory units
(the entry id as unit id), their statuses and supersede chains, and the
conflicts the SDK's own rule finds between live entries of a topic (type
factual, detected_by logical). Importing the same log again, or the log grown,
adds only what is new; the field's own decisions are never undone.

A torn last line is skipped, as the SDK does, with a notice on stderr. Any
other bad line (invalid JSON, an unknown version or event type, a missing
field, a repeated event_id) stops the import before the field is touched:
exit 1, naming the line. docs/akashik-interop.md has the whole mapping.`,
		Args: exactArgs(1, "one log file"),
		PreRunE: func(*cobra.Command, []string) error {
			if from != interop.SourceAkashikJSONL {
				return usageErrorf("--from %q: the only source is %s", from, interop.SourceAkashikJSONL)
			}
			return nil
		},
		RunE: a.do(func(cmd *cobra.Command, args []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			path := args[0]
			log, err := akashiklog.ReadFile(path)
			if err != nil {
				return fmt.Errorf("%w; nothing was imported", err)
			}
			if log.TornTail {
				fmt.Fprintf(a.stderr, "arbiter: %s: skipped the torn last line %d (a writer stopped mid-line), as the SDK does\n",
					clean(path), log.TornLine)
			}
			return a.withStore(cmd.Context(), cfg, func(ctx context.Context, st store.Field) error {
				a.sweepFirst(ctx, review.New(st))
				p := newProgress(a.stderr, "import", "entries", 0)
				rep, err := interop.ImportAkashikCounting(ctx, st, log, time.Now(), p.set)
				p.finish()
				if err != nil {
					return importFailed(err)
				}
				a.noteAnomalies(path, rep.Anomalies)
				if asJSON {
					return jsonout.Write(a.stdout, rep)
				}
				printImport(a.stdout, path, field.Redact(cfg.DB), rep)
				return nil
			})
		}),
	}
	cmd.Flags().StringVar(&from, "from", "", "the log's format: akashik-jsonl (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	cmd.MarkFlagRequired("from")
	return cmd
}

// importFailed keeps the field's own refusals (read-only, busy, full) as
// they are and turns anything else into one plain failure: the import as
// a whole did not happen.
func importFailed(err error) error {
	if pe, ok := model.AsError(err); ok {
		switch pe.Code {
		case model.CodeReadOnly, model.CodeFieldBusy, model.CodeStorageFull:
			return err
		}
	}
	return fmt.Errorf("import failed, nothing was imported: %v", err)
}

// noteAnomalies tells, on stderr, of the log's events the SDK's replay
// could not apply as written; the import replays them as the SDK does.
func (a *app) noteAnomalies(path string, anomalies []akashiklog.Anomaly) {
	const most = 5
	for i, an := range anomalies {
		if i == most {
			fmt.Fprintf(a.stderr, "arbiter: %s: ... and %d more such events\n", clean(path), len(anomalies)-most)
			break
		}
		fmt.Fprintf(a.stderr, "arbiter: %s: note: line %d %s; replayed as the SDK does\n", clean(path), an.Line, clean(an.Reason))
	}
}

func printImport(w io.Writer, path, db string, rep interop.ImportReport) {
	fmt.Fprintf(w, "imported %s (%s) into %s\n", clean(path), plural(rep.Events, "event", "events"), clean(db))
	fmt.Fprintf(w, "  agents     %d new, %d already there\n", rep.Agents.New, rep.Agents.Existing)
	fmt.Fprintf(w, "  units      %d new, %d already there", rep.Units.New, rep.Units.Existing)
	if rep.StatusesChanged > 0 {
		fmt.Fprintf(w, ", %d moved on to the log's status", rep.StatusesChanged)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  conflicts  %d new, %d already there", rep.Conflicts.New, rep.Conflicts.Existing)
	if rep.PairsSkipped > 0 {
		fmt.Fprintf(w, ", %d skipped (a unit no longer stands in the field)", rep.PairsSkipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  epoch      %d\n", rep.Epoch)
}
