package cli

import (
	"context"
	"fmt"
	"io"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) voteCmd() *cobra.Command {
	var (
		req    model.VoteRequest
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "vote CONFLICT --for U|A|B --rationale TEXT",
		Short: "Cast or change your ballot on a conflict put to a vote",
		Long: `Cast, or change, the ballot of --as on a conflict put to a vote. --for takes
a unit id, or A or B. When the ballots reach the quorum the majority prevails;
a tie stays open or goes to a human operator, as the field's policy says.
--json prints the vote response.`,
		Args: exactArgs(1, "one conflict id"),
		PreRunE: func(*cobra.Command, []string) error {
			if req.ExpectedVersion < 0 {
				return usageErrorf("--expect-version %d: versions start at 1", req.ExpectedVersion)
			}
			return nil
		},
		RunE: a.writingCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			req.ConflictID = args[0]
			resp, err := svc.Vote(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, resp)
			}
			if resp.Offline != nil {
				printOfflineVote(a.stdout, resp)
				return nil
			}
			printVote(a.stdout, cfg.As, resp)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&req.Choice, "for", "", "the unit you vote for: its id, or A or B (required)")
	fl.StringVar(&req.Rationale, "rationale", "", "why (required)")
	fl.Int64Var(&req.ExpectedVersion, "expect-version", 0, "the conflict version you voted on (0: not checked)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("for")
	cmd.MarkFlagRequired("rationale")
	return cmd
}

// printVote says what a ballot did: the tally against the quorum and
// whether it closed the vote.
func printVote(w io.Writer, voter string, resp model.VoteResponse) {
	c := resp.Conflict
	choice := ""
	for _, b := range resp.Ballots {
		if b.VoterID == voter {
			choice = sideOf(c, b.Choice)
		}
	}
	verb := "cast"
	if resp.Changed {
		verb = "changed"
	}
	if resp.Unchanged {
		fmt.Fprintf(w, "%s already voted for %s on %s with that rationale: nothing changed\n", clean(voter), choice, clean(c.ID))
	} else {
		fmt.Fprintf(w, "%s %s ballot on %s: for %s\n", clean(voter), verb, clean(c.ID), choice)
	}
	t := resp.Tally
	fmt.Fprintf(w, "  tally       A %d, B %d: %d of quorum %d\n", t.ForA, t.ForB, t.Total(), t.Quorum)
	switch {
	case resp.Closed && resp.Status == model.StatusResolved:
		winner := ""
		if r := c.Resolution; r != nil && r.WinnerID != nil {
			winner = sideOf(c, *r.WinnerID)
		}
		fmt.Fprintf(w, "  the vote closed %s: resolved, %s prevails (now version %d)\n", clean(c.ID), winner, c.Version)
		printSideEffects(w, resp.SideEffects)
	case resp.Closed:
		fmt.Fprintf(w, "  the vote tied at quorum: %s is %s for a human operator (now version %d)\n", clean(c.ID), resp.Status, c.Version)
		printSideEffects(w, resp.SideEffects)
	case t.Reached():
		fmt.Fprintf(w, "  tied at quorum: the vote stays open until a ballot is cast or changed\n")
	default:
		n, word := t.Quorum-t.Total(), "ballots"
		if n == 1 {
			word = "ballot"
		}
		fmt.Fprintf(w, "  the vote stays open: it needs %d more %s\n", n, word)
	}
}

// printOfflineVote is printOfflineMerge for a ballot.
func printOfflineVote(w io.Writer, resp model.VoteResponse) {
	o := resp.Offline
	fmt.Fprintf(w, "recorded in %s for later `arbiter apply` (message %s, epoch %d)\n", clean(o.File), clean(o.MessageID), o.Epoch)
	t := resp.Tally
	fmt.Fprintf(w, "  tally once applied  A %d, B %d: %d of quorum %d; %s would be %s\n",
		t.ForA, t.ForB, t.Total(), t.Quorum, clean(resp.Conflict.ID), resp.Status)
}
