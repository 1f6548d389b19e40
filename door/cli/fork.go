package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/spf13/cobra"
)

func (a *app) forkCmd() *cobra.Command {
	var to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "fork --to FILE",
		Short: "Copy the field to a new SQLite file that knows it is a fork, to join back later",
		Long: `Copy the whole field (a file or a PostgreSQL field) to FILE, a new SQLite
file, as copy does, and make the two know each other: each gets an identity,
and both record the fork and the epoch it was taken at, with a FORK event.
The fork is an ordinary field: record, decide and vote in it, offline or
elsewhere. Later, join brings back what happened in it:

  arbiter --db team.db fork --to site-b.db
  arbiter --db site-b.db --as ana record ...         # work in the fork
  arbiter --db team.db --as maya join site-b.db      # bring it back

See docs/fork-join.md.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			switch {
			case to == "":
				return usageErrorf("fork needs --to FILE, the new fork")
			case field.IsServer(to):
				return usageErrorf("--to %s: a fork is a SQLite file; copy it to a server afterwards if need be", field.Redact(to))
			}
			if _, err := os.Lstat(to); err == nil {
				return usageErrorf("--to %s exists already: a fork is a new file; name one that does not exist", to)
			}
			return nil
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			made, err := field.Create(ctx, to, model.DefaultPolicy())
			if errors.Is(err, fs.ErrExist) {
				return usageErrorf("--to %s exists already: a fork is a new file; name one that does not exist", to)
			}
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			res, err := svc.Fork(ctx, cfg.As, made)
			if err != nil {
				made.Remove(ctx)
				return err
			}
			if err := made.Close(); err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, res)
			}
			fmt.Fprintf(a.stdout, "forked %s to %s at epoch %d\n", clean(field.Redact(res.Field)), clean(res.Fork), res.BaseEpoch)
			fmt.Fprintf(a.stdout, "  field     %s\n", res.FieldUID)
			fmt.Fprintf(a.stdout, "  fork      %s\n", res.ForkUID)
			fmt.Fprintf(a.stdout, "  holds     %d agents, %d units, %d conflicts, %d events\n",
				res.Summary.Agents, res.Summary.Units, res.Summary.Conflicts, res.Summary.Events)
			fmt.Fprintf(a.stdout, "  join it back with: arbiter --db %s --as OPERATOR join %s\n", clean(field.Redact(cfg.DB)), clean(to))
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&to, "to", "", "the new fork: a SQLite file that does not exist yet")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) joinCmd() *cobra.Command {
	opt := review.JoinOptions{BaseEpoch: -1}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "join FORK [--dry-run] [--json]",
		Short: "Bring back into the field what happened in a fork of it (a human operator)",
		Long: `Bring into the field what happened in FORK since it was forked (or last
joined), as one transaction, acting as --as, a human operator:

  - units recorded only in the fork are added, under new ids where theirs are
    taken here; every relation is remapped; show says where each came from;
  - a unit revised on both sides (each recorded a unit superseding the same
    unit from before the fork, with other text) opens a conflict between the
    two revisions, escalated to a person, whose three-way view has the unit
    both revised as its ancestor;
  - conflicts opened in the fork come with their ballots and history;
  - a conflict decided in the fork only takes the fork's decision; decided
    alike on both sides, nothing changes; decided differently, it goes before
    you again with both decisions and both rationales in its history;
  - agents registered in the fork are registered; one registered differently
    on the two sides is reported and left as the field has it;
  - the fork's notifications are not sent again; the join sends its own.

Joining the same fork again adds nothing; a later join takes only what is
newer. A file that is not a fork of the field is refused, unless
--base-epoch N says the epoch where the two diverged. --dry-run prints what
the join would do and how far the two diverged, and writes nothing.
See docs/fork-join.md.`,
		Args: exactArgs(1, "one fork: a file made by arbiter fork"),
		PreRunE: func(*cobra.Command, []string) error {
			if opt.BaseEpoch < -1 {
				return usageErrorf("--base-epoch %d: epochs start at 0", opt.BaseEpoch)
			}
			return nil
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			if cfg.As == "" && !opt.DryRun {
				return usageErrorf("join acts as someone: say who with --as ID (or ARBITER_AS), a human operator; --dry-run previews the join as anyone")
			}
			fork, err := field.Open(ctx, args[0], store.Options{ReadOnly: true})
			if errors.Is(err, fs.ErrNotExist) {
				return model.Errorf(model.OpJoin, model.CodeInvalidRequest, "name a file made by arbiter fork", "%s: no such fork", field.Redact(args[0]))
			}
			if err != nil {
				return err
			}
			defer fork.Close()
			var rep model.JoinReport
			if opt.DryRun && (cfg.As == "" || !svc.Writable()) {
				rep, err = previewJoin(ctx, svc, fork, opt)
			} else {
				rep, err = svc.Join(ctx, cfg.As, fork, opt)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, rep)
			}
			printJoin(a.stdout, field.Redact(cfg.DB), rep)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&opt.DryRun, "dry-run", false, "print what the join would do, writing nothing")
	fl.Int64Var(&opt.BaseEpoch, "base-epoch", -1, "the epoch the two diverged at, for a file the field does not know as its fork")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// previewJoin is join --dry-run for someone who may only read the field:
// the join runs on a scratch copy in a temporary directory, removed
// afterwards (review.JoinPreview).
func previewJoin(ctx context.Context, svc *review.Service, fork store.Field, opt review.JoinOptions) (model.JoinReport, error) {
	dir, err := os.MkdirTemp("", "arbiter-join-preview-")
	if err != nil {
		return model.JoinReport{}, err
	}
	defer os.RemoveAll(dir)
	scratch, err := field.Create(ctx, filepath.Join(dir, "preview.db"), model.DefaultPolicy())
	if err != nil {
		return model.JoinReport{}, err
	}
	defer scratch.Close()
	return svc.JoinPreview(ctx, fork, scratch, opt)
}

// printJoin prints a join's report for people.
func printJoin(w io.Writer, into string, r model.JoinReport) {
	if r.Nothing {
		fmt.Fprintf(w, "nothing new in %s since it was last joined (its clock is at %d); nothing written\n", clean(r.Fork), r.ForkEpoch)
		return
	}
	head := fmt.Sprintf("joined %s into %s", clean(r.Fork), clean(into))
	if r.DryRun {
		head = fmt.Sprintf("joining %s into %s would do this (dry run: nothing written)", clean(r.Fork), clean(into))
	}
	if r.Since+1 == r.ForkEpoch {
		fmt.Fprintf(w, "%s: the fork's epoch %d\n", head, r.ForkEpoch)
	} else {
		fmt.Fprintf(w, "%s: the fork's epochs %d to %d\n", head, r.Since+1, r.ForkEpoch)
	}
	line := func(label, s string) { fmt.Fprintf(w, "  %-20s %s\n", label, s) }
	line("units added", fmt.Sprintf("%d (%d under new ids)", r.UnitsAdded, r.UnitsRenamed))
	line("revised alike", fmt.Sprint(r.RevisedAlike))
	line("revision conflicts", counted(r.RevisionConflicts, "escalated to a person"))
	line("conflicts brought", fmt.Sprintf("%d, with %d ballots and %d events", r.ConflictsBrought, r.BallotsBrought, r.EventsBrought))
	if r.BallotsCast+r.BallotsLeft > 0 {
		line("ballots on votes", fmt.Sprintf("%d cast here, %d left (the voter voted here, or the vote is not open here)", r.BallotsCast, r.BallotsLeft))
	}
	line("decisions taken", counted(r.DecisionsTaken, "decided in the fork only"))
	line("decided alike", fmt.Sprint(r.DecisionsSame))
	line("decided apart", counted(r.DecisionsDiffer, "before a person again"))
	if len(r.DecisionsKept) > 0 {
		line("decided apart, kept", counted(r.DecisionsKept, "a later decision here depends on this one's"))
	}
	line("agents registered", counted(r.AgentsRegistered, ""))
	line("agents differing", counted(r.AgentsDiffer, "left as this field has them"))
	d := r.Divergence
	line("the fork did", sideWork(d.Fork))
	if r.DryRun {
		line("this field did", sideWork(d.Field))
	}
}

// counted is "2: conflict-014, conflict-015 (note)", or "0".
func counted(ids []string, note string) string {
	if len(ids) == 0 {
		return "0"
	}
	const most = 10
	shown := ids[:min(len(ids), most)]
	s := fmt.Sprintf("%d: %s", len(ids), cleanList(shown))
	if len(ids) > most {
		s += ", …"
	}
	if note != "" {
		s += " (" + note + ")"
	}
	return s
}

func sideWork(s model.SideWork) string {
	return strings.Join([]string{plural(s.Added, "unit added", "units added"), fmt.Sprintf("%d revising another", s.Revised),
		plural(s.Decided, "conflict decided", "conflicts decided")}, ", ")
}
