package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"arbiter/door/config"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/charmbracelet/x/editor"
	"github.com/spf13/cobra"
)

type approveFlags struct {
	rationale     string
	winner        string
	synthesis     string
	synthesisFile string
	edit          bool
	expect        int64
	json          bool
}

func (a *app) approveCmd() *cobra.Command {
	var f approveFlags
	cmd := &cobra.Command{
		Use:   "approve CONFLICT --rationale TEXT [--winner A|B | --synthesis TEXT | --synthesis-file F | --edit]",
		Short: "Carry out an escalation's proposal as your decision, or modify it first",
		Long: `Carry out what the agent who escalated a conflict proposed (merge
--propose / --propose-synthesis), as your own decision, with your rationale:

  approve   as proposed
  modify    --winner A|B (or a unit id) keeps the other unit instead;
            --synthesis TEXT, --synthesis-file F|- or --edit ($EDITOR, starting
            from the proposed text) writes the synthesis otherwise

A kept unit is decided by the rule that picks it, if one does
(last_write_wins, confidence_weighted, evidence_count, in that order), else
by authority: the resolution says truly how it was decided. A synthesis is
decided by synthesis. It is an ordinary MERGE: the same permissions (a human
operator, or the owner where the policy lets owners decide), the same
--expect-version, and it goes to the decisions file with --decisions-out. It
is refused if the proposal changed since you read it. To send the work back
instead, use arbiter rework.`,
		Args: exactArgs(1, "one conflict id"),
		PreRunE: func(*cobra.Command, []string) error {
			if f.expect < 0 {
				return usageErrorf("--expect-version %d: versions start at 1", f.expect)
			}
			return nil
		},
		RunE: a.writingCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			req := model.ApproveRequest{ConflictID: args[0], Rationale: f.rationale, ExpectedVersion: f.expect}
			if f.winner != "" {
				req.WinnerID = &f.winner
			}
			switch {
			case f.synthesisFile != "":
				text, err := a.readText(f.synthesisFile)
				if err != nil {
					return err
				}
				req.Synthesis = &text
			case f.synthesis != "":
				req.Synthesis = &f.synthesis
			case f.edit:
				text, err := a.editSynthesis(ctx, svc, args[0])
				if err != nil {
					return err
				}
				req.Synthesis = &text
			}
			if req.Synthesis != nil {
				unsettledNote(a.stderr, *req.Synthesis)
			}
			resp, err := svc.Approve(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			return a.writeMerge(resp, f.json)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rationale, "rationale", "", "why (required)")
	fl.StringVar(&f.winner, "winner", "", "modify: keep this unit instead (A, B or its id)")
	fl.StringVar(&f.synthesis, "synthesis", "", "modify: this synthesis text instead")
	fl.StringVar(&f.synthesisFile, "synthesis-file", "", "modify: read the synthesis text from a file, or - for stdin")
	fl.BoolVar(&f.edit, "edit", false, "modify: edit the proposed synthesis in $EDITOR")
	fl.Int64Var(&f.expect, "expect-version", 0, "the conflict version you read (0: the one the proposal is read at)")
	fl.BoolVar(&f.json, "json", false, "print JSON (the MERGE response)")
	cmd.MarkFlagRequired("rationale")
	cmd.MarkFlagsMutuallyExclusive("winner", "synthesis", "synthesis-file", "edit")
	return cmd
}

// editSynthesis opens $EDITOR on the conflict's proposed synthesis (or an
// empty text) and returns what was written.
func (a *app) editSynthesis(ctx context.Context, svc *review.Service, id string) (string, error) {
	d, err := svc.Detail(ctx, id)
	if err != nil {
		return "", err
	}
	draft := ""
	if p := d.Conflict.Proposal; p != nil && p.Synthesis != nil {
		draft = *p.Synthesis
	}
	fh, err := os.CreateTemp("", "arbiter-synthesis-*.md")
	if err != nil {
		return "", err
	}
	defer os.Remove(fh.Name())
	_, err = fh.WriteString(draft + "\n")
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	cmd, err := editor.Cmd("arbiter", fh.Name())
	if err != nil {
		return "", err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the editor failed: %w", err)
	}
	b, err := os.ReadFile(fh.Name())
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), " \t\r\n"), nil
}
