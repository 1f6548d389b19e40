package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/spf13/cobra"
)

// copyJSON is copy --json's answer.
type copyJSON struct {
	From    string        `json:"from"`
	To      string        `json:"to"`
	Created bool          `json:"created"`
	Summary store.Summary `json:"summary"`
}

func (a *app) copyCmd() *cobra.Command {
	var from, to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "copy --from SRC --to DST",
		Short: "Copy a whole field to another engine: PostgreSQL to a SQLite file, or a file to a server",
		Long: `Copy the whole field SRC into DST, either of them a SQLite file or a PostgreSQL
connection string: agents, units and relations, conflicts, ballots,
notifications and the event log, with their ids, sequence numbers and epochs,
and the clock. SRC is read as it stands at one moment (one read transaction)
and DST written in one transaction: all of it or nothing.

DST is created if it does not exist (a file, or a schema on the server); an
existing DST must be an empty field (as init leaves it), or copy refuses.
Afterwards copy prints what was copied and a digest of the field's content,
read back from DST, which is the same on both sides (it fails if not).

  arbiter copy --from postgres://maya@db/team --to laptop.db    # triage offline
  arbiter --db laptop.db --as maya --decisions-out decisions.jsonl
  arbiter --db postgres://maya@db/team apply decisions.jsonl     # back on the server
  arbiter copy --from team.db --to postgres://admin@db/team      # move a team to a server`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			switch {
			case from == "" || to == "":
				return usageErrorf("copy needs --from SRC and --to DST")
			case from == to:
				return usageErrorf("--from and --to name the same field")
			}
			return nil
		},
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			start := time.Now()
			got, created, err := copyField(ctx, from, to, a.stderr)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, copyJSON{From: field.Redact(from), To: field.Redact(to), Created: created, Summary: got})
			}
			fmt.Fprintf(a.stdout, "copied %s to %s in %s\n", clean(field.Redact(from)), clean(field.Redact(to)), time.Since(start).Round(100*time.Millisecond))
			fmt.Fprintf(a.stdout, "  agents         %d\n", got.Agents)
			fmt.Fprintf(a.stdout, "  units          %d\n", got.Units)
			fmt.Fprintf(a.stdout, "  relations      %d\n", got.Relations)
			fmt.Fprintf(a.stdout, "  conflicts      %d\n", got.Conflicts)
			fmt.Fprintf(a.stdout, "  ballots        %d\n", got.Ballots)
			fmt.Fprintf(a.stdout, "  notifications  %d\n", got.Notifications)
			fmt.Fprintf(a.stdout, "  events         %d\n", got.Events)
			fmt.Fprintf(a.stdout, "  epoch          %d\n", got.Epoch)
			fmt.Fprintf(a.stdout, "  sha256         %s (the same in both)\n", got.SHA256)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "the field to copy: a file or a PostgreSQL connection string")
	fl.StringVar(&to, "to", "", "where to copy it: a new or empty field, a file or a PostgreSQL connection string")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// copyField copies the field from into to, creating to when it does not
// exist (and removing the field it created if the copy fails).
func copyField(ctx context.Context, from, to string, report io.Writer) (store.Summary, bool, error) {
	src, err := field.Open(ctx, from, store.Options{ReadOnly: true})
	if errors.Is(err, fs.ErrNotExist) {
		return store.Summary{}, false, fmt.Errorf("--from %s: no such field to copy", field.Redact(from))
	}
	if err != nil {
		return store.Summary{}, false, fmt.Errorf("--from: %w", err)
	}
	defer src.Close()
	var total int64 // for the progress report: an estimate
	if err := readCounts(ctx, src, func(tx countTx) (err error) { total, err = store.CopySize(tx); return err }); err != nil {
		return store.Summary{}, false, fmt.Errorf("--from: %w", err)
	}
	made, err := field.Create(ctx, to, model.DefaultPolicy())
	var dst store.Field = made
	if errors.Is(err, fs.ErrExist) {
		made = nil
		dst, err = field.Open(ctx, to, store.Options{})
	}
	if err != nil {
		return store.Summary{}, false, fmt.Errorf("--to: %w", err)
	}
	created := made != nil
	p := newProgress(report, "copy", "rows", total)
	got, err := store.CopyCounting(ctx, src, dst, p.add)
	p.finish()
	if err != nil && created {
		made.Remove(ctx)
	} else {
		dst.Close()
	}
	if err != nil {
		if errors.Is(err, store.ErrNotEmpty) {
			return got, created, model.Errorf("COPY", model.CodeInvalidTransition, "copy into a new file, or a field init has just made",
				"--to %s is a field that is not empty (%s); nothing was copied", field.Redact(to), strings.TrimPrefix(err.Error(), store.ErrNotEmpty.Error()+": "))
		}
		return got, created, err
	}
	return got, created, nil
}
