package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/interop"
	"arbiter/store"

	"github.com/spf13/cobra"
)

func (a *app) exportCmd() *cobra.Command {
	var (
		to        string
		decisions bool
		out       string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "export (--to akashik-jsonl LOG | --decisions [--out FILE])",
		Short: "Append the field's decisions to an Akashik SDK log, or list them as MERGE messages",
		Long: `--to akashik-jsonl LOG appends what people decided to the SDK's event log LOG,
in the SDK's terms, under its lock-file protocol: for every resolved conflict
between two entries of LOG, the loser is superseded (STATUS_CHANGE), and a
synthesis is recorded as a new entry superseding one original while the other
is superseded; dismissals say nothing. Each event has an id derived from the
decision, so exporting again appends only what is new.

--decisions writes every decision of the field's event log (each MERGE that
resolved, escalated or opened a vote, and each ballot) as Akashik MERGE
messages, one JSON line each, to stdout or --out FILE, for audit.
docs/akashik-interop.md describes both.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case to != "" && decisions:
				return fmt.Errorf("use --to or --decisions, not both")
			case to != "":
				return exactArgs(1, "one log file")(cmd, args)
			case decisions:
				return exactArgs(0, "no arguments with --decisions")(cmd, args)
			}
			return fmt.Errorf("say what to export: --to akashik-jsonl LOG or --decisions")
		},
		PreRunE: func(*cobra.Command, []string) error {
			if to != "" && to != interop.SourceAkashikJSONL {
				return usageErrorf("--to %q: the only format is %s", to, interop.SourceAkashikJSONL)
			}
			if out != "" && !decisions {
				return usageErrorf("--out goes with --decisions")
			}
			return nil
		},
		RunE: a.do(func(cmd *cobra.Command, args []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			return a.withStore(cmd.Context(), cfg, func(ctx context.Context, st store.Field) error {
				if decisions {
					return a.exportDecisions(ctx, st, out)
				}
				p := newProgress(a.stderr, "export", "decisions", 0)
				rep, err := interop.ExportAkashikCounting(ctx, st, args[0], p.set)
				p.finish()
				if err != nil {
					return err
				}
				if rep.CutTornLine {
					fmt.Fprintf(a.stderr, "arbiter: %s: cut off its torn last line before appending, as the SDK's writers do\n", clean(args[0]))
				}
				if asJSON {
					return jsonout.Write(a.stdout, rep)
				}
				printExport(a.stdout, args[0], rep)
				return nil
			})
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&to, "to", "", "append to an Akashik SDK log: akashik-jsonl")
	fl.BoolVar(&decisions, "decisions", false, "write the field's decisions as Akashik MERGE messages (JSONL)")
	fl.StringVar(&out, "out", "", "with --decisions: write to this file instead of stdout")
	fl.BoolVar(&asJSON, "json", false, "with --to: print the counts as JSON")
	return cmd
}

func printExport(w io.Writer, path string, rep interop.ExportReport) {
	fmt.Fprintf(w, "appended %s to %s (%d already there)\n", plural(rep.Appended, "event", "events"), clean(path), rep.AlreadyInLog)
	fmt.Fprintf(w, "  resolved conflicts  %d: %d in the SDK's terms, %d dismissed, %d not between entries of this log\n",
		rep.Resolved, rep.Exported, rep.Dismissed, rep.NotInLog)
}

// exportDecisions writes the decision history as JSONL to out, or stdout.
func (a *app) exportDecisions(ctx context.Context, st store.Field, out string) error {
	w := a.stdout
	var f *os.File
	if out != "" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	n := 0
	err := interop.DecisionHistory(ctx, st, func(env model.Envelope) error {
		n++
		return writeJSONLine(bw, env)
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		if err := f.Sync(); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "arbiter: wrote %s to %s\n", plural(n, "decision", "decisions"), clean(out))
	}
	return nil
}

// writeJSONLine writes v as one line of compact JSON, with DEL and C1
// controls escaped as writeJSON does.
func writeJSONLine(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonout.EscapeControls(buf.Bytes()))
	return err
}
