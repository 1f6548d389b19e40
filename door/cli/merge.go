package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

type mergeFlags struct {
	strategy      string
	winner        string
	synthesis     string
	synthesisFile string
	rationale     string
	expect        int64
	json          bool
	// Routing (human_escalation and vote) and the proposal
	// (human_escalation).
	to               string
	deadline         string
	fallback         string
	propose          string
	proposeSynthesis string
}

func (a *app) mergeCmd() *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge CONFLICT --strategy S --rationale TEXT",
		Short: "Decide a conflict with a strategy (MERGE)",
		Long: "Decide a conflict as --as with one of the strategies:\n\n" + strategyHelp() + `
--winner takes a unit id, or A or B for the conflict's unit_a or unit_b.
--expect-version N (from show) refuses the decision if the conflict changed
since you read it. --json prints the MERGE response.

An escalation (human_escalation) is routed to a person and may carry what
you would do:
  --to ID                 the owner (default: the policy's owner for the
                          conflict's type, else any human operator)
  --deadline D            90s, 4h, 2d (default: the policy's escalation
                          timeout; none: no deadline)
  --fallback F            what executes at the deadline: dismiss, rework,
                          last_write_wins, confidence_weighted,
                          evidence_count or escalate:ID (default: the
                          policy's; none: it stays, overdue)
  --propose A|B           you would keep this unit
  --propose-synthesis T   you would replace both with this text (@FILE
                          reads it from a file, @- from stdin)
People answer with arbiter approve (as proposed, or modified) or arbiter
rework (send it back), or decide it with any strategy.

A vote takes --deadline and --fallback too: at its deadline the majority of
the ballots cast prevails if at least the policy's vote-min-ballots were
cast, else the fallback executes.`,
		Args: exactArgs(1, "one conflict id"),
		PreRunE: func(*cobra.Command, []string) error {
			if f.strategy != "" && f.strategy != string(model.Rework) && !model.Strategy(f.strategy).Valid() { // a missing one is cobra's to report
				return usageErrorf("--strategy %q: use one of %s", f.strategy, strategyNames())
			}
			if f.expect < 0 {
				return usageErrorf("--expect-version %d: versions start at 1", f.expect)
			}
			if f.strategy == string(model.Rework) {
				return usageErrorf("--strategy rework: send a conflict back with arbiter rework CONFLICT --rationale TEXT")
			}
			return f.checkRouting()
		},
		RunE: a.deskCommand(func(ctx context.Context, cfg config.Config, svc review.Desk, args []string) error {
			a.sweepFirst(ctx, svc)
			req, err := a.mergeRequest(ctx, svc, args[0], f)
			if err != nil {
				return err
			}
			resp, err := svc.Merge(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			return a.writeMerge(resp, f.json)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.strategy, "strategy", "", "how to decide (see above; required)")
	fl.StringVar(&f.winner, "winner", "", "the winning unit: its id, or A or B")
	fl.StringVar(&f.synthesis, "synthesis", "", "the text of the unit that reconciles both (strategy synthesis)")
	fl.StringVar(&f.synthesisFile, "synthesis-file", "", "read the synthesis text from a file, or - for stdin")
	fl.StringVar(&f.rationale, "rationale", "", "why (required)")
	fl.Int64Var(&f.expect, "expect-version", 0, "the conflict version you decided on (0: not checked)")
	fl.BoolVar(&f.json, "json", false, "print JSON")
	cmd.MarkFlagRequired("strategy")
	cmd.MarkFlagRequired("rationale")
	fl.StringVar(&f.to, "to", "", "human_escalation: the person it is routed to (default: the policy's owner, else any human operator)")
	fl.StringVar(&f.deadline, "deadline", "", "human_escalation, vote: how long until the fallback executes (90s, 4h, 2d; default: the policy's)")
	fl.StringVar(&f.fallback, "fallback", "", "human_escalation, vote: what executes at the deadline (dismiss, rework, a rule, escalate:ID; default: the policy's)")
	fl.StringVar(&f.propose, "propose", "", "human_escalation: the unit you would keep (A, B or its id)")
	fl.StringVar(&f.proposeSynthesis, "propose-synthesis", "", "human_escalation: the synthesis you would write (TEXT, or @FILE, @- for stdin)")
	cmd.MarkFlagsMutuallyExclusive("synthesis", "synthesis-file")
	cmd.MarkFlagsMutuallyExclusive("propose", "propose-synthesis")
	return cmd
}

// writeMerge prints a MERGE response: JSON, or what changed (or, offline,
// what will when the decisions file is applied).
func (a *app) writeMerge(resp model.MergeResponse, asJSON bool) error {
	switch {
	case asJSON:
		return jsonout.Write(a.stdout, resp)
	case resp.Offline != nil:
		printOfflineMerge(a.stdout, resp)
	default:
		printMerge(a.stdout, resp)
	}
	return nil
}

// checkRouting refuses routing and proposal flags that do not go with the
// strategy, or do not parse, before the field is opened.
func (f mergeFlags) checkRouting() error {
	s := model.Strategy(f.strategy)
	routed := s == model.HumanEscalation || s == model.Vote
	switch {
	case (f.deadline != "" || f.fallback != "") && !routed:
		return usageErrorf("--deadline and --fallback go with --strategy human_escalation or vote")
	case f.to != "" && s != model.HumanEscalation:
		return usageErrorf("--to goes with --strategy human_escalation (a vote goes to its eligible voters)")
	case (f.propose != "" || f.proposeSynthesis != "") && s != model.HumanEscalation:
		return usageErrorf("--propose and --propose-synthesis go with --strategy human_escalation")
	}
	return checkRoutingFlags(f.deadline, f.fallback)
}

// mergeRequest builds the MERGE request from the command line.
func (a *app) mergeRequest(ctx context.Context, svc review.Desk, id string, f mergeFlags) (model.MergeRequest, error) {
	req := model.MergeRequest{ConflictID: id, Strategy: model.Strategy(f.strategy), ExpectedVersion: f.expect,
		Resolution: model.MergeResolution{Rationale: f.rationale}}
	if f.winner != "" {
		w, err := winnerID(ctx, svc, id, f.winner)
		if err != nil {
			return req, err
		}
		req.Resolution.WinnerID = &w
	}
	switch {
	case f.synthesisFile != "":
		text, err := a.readText(f.synthesisFile)
		if err != nil {
			return req, err
		}
		unsettledNote(a.stderr, text)
		req.Resolution.Synthesis = &text
	case f.synthesis != "":
		unsettledNote(a.stderr, f.synthesis)
		req.Resolution.Synthesis = &f.synthesis
	}
	if f.to != "" || f.deadline != "" || f.fallback != "" {
		req.Routing = &model.Routing{To: f.to, Deadline: f.deadline, Fallback: model.Fallback(f.fallback)}
	}
	switch {
	case f.propose != "":
		w, err := winnerID(ctx, svc, id, f.propose)
		if err != nil {
			return req, err
		}
		req.Proposal = &model.Proposed{WinnerID: &w}
	case f.proposeSynthesis != "":
		text := f.proposeSynthesis
		if name, ok := strings.CutPrefix(text, "@"); ok {
			var err error
			if text, err = a.readText(name); err != nil {
				return req, err
			}
		}
		req.Proposal = &model.Proposed{Synthesis: &text}
	}
	return req, nil
}

// winnerID resolves --winner: A and B name the conflict's units.
func winnerID(ctx context.Context, svc review.Desk, conflictID, winner string) (string, error) {
	side := strings.ToUpper(strings.TrimSpace(winner))
	if side != "A" && side != "B" {
		return winner, nil
	}
	d, err := svc.Detail(ctx, conflictID)
	if err != nil {
		return "", err
	}
	if side == "A" {
		return d.Conflict.UnitA, nil
	}
	return d.Conflict.UnitB, nil
}

// readText reads a whole file, or stdin for "-", without its trailing
// blank lines.
func (a *app) readText(name string) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(a.stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), " \t\r\n"), nil
}

// strategyHelp lists every strategy with what it does and what it takes.
func strategyHelp() string {
	var b strings.Builder
	for _, s := range model.Strategies {
		line := s.About()
		switch {
		case s.NeedsWinner():
			line += "; --winner names it"
		case s == model.Synthesis:
			line += " (--synthesis TEXT or --synthesis-file F|-)"
		}
		if s.Level() < 3 {
			line += fmt.Sprintf(" (level %d)", s.Level())
		}
		fmt.Fprintf(&b, "  %-20s %s\n", s, line)
	}
	return b.String()
}

func strategyNames() string {
	names := make([]string, len(model.Strategies))
	for i, s := range model.Strategies {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// printMerge says what a MERGE did.
func printMerge(w io.Writer, resp model.MergeResponse) {
	c := resp.Conflict
	switch resp.Status {
	case model.StatusEscalated:
		to := "a human operator"
		if c.Route != nil && c.Route.Owner != "" {
			to = clean(c.Route.Owner)
		}
		fmt.Fprintf(w, "escalated %s to %s (now version %d)\n", clean(c.ID), to, c.Version)
		if c.Route != nil {
			fmt.Fprintf(w, "  route       %s\n", clean(c.Route.DescribeDeadline(time.Now())))
		}
		if p := c.Proposal; p != nil {
			fmt.Fprintf(w, "  proposal    %s\n", clean(p.Describe(c)))
		}
	case model.StatusPendingVote:
		fmt.Fprintf(w, "put %s to a vote (now version %d): eligible agents vote with `arbiter vote %s --for A|B --rationale TEXT`\n",
			clean(c.ID), c.Version, shellQuote(clean(c.ID)))
		if c.Route != nil && c.Route.Deadline != nil {
			fmt.Fprintf(w, "  route       %s\n", clean(c.Route.DescribeDeadline(time.Now())))
		}
	default:
		fmt.Fprintf(w, "%s %s (now version %d)\n", resp.Status, clean(c.ID), c.Version)
	}
	if r := c.Resolution; r != nil {
		fmt.Fprintf(w, "  strategy    %s\n", clean(string(r.Strategy)))
		if r.WinnerID != nil {
			fmt.Fprintf(w, "  winner      %s\n", sideOf(c, *r.WinnerID))
		}
	}
	printSideEffects(w, resp.SideEffects)
}

func printSideEffects(w io.Writer, se model.SideEffects) {
	if len(se.SupersededUnits) > 0 {
		fmt.Fprintf(w, "  superseded  %s\n", cleanList(se.SupersededUnits))
	}
	if se.NewUnitID != nil {
		fmt.Fprintf(w, "  new unit    %s\n", clean(*se.NewUnitID))
	}
	fmt.Fprintf(w, "  notified    %s\n", cleanList(se.NotifiedAgents))
}

// printOfflineMerge says where a MERGE made on a read-only field went and
// what it will do once applied.
func printOfflineMerge(w io.Writer, resp model.MergeResponse) {
	o := resp.Offline
	fmt.Fprintf(w, "recorded in %s for later `arbiter apply` (message %s, epoch %d)\n", clean(o.File), clean(o.MessageID), o.Epoch)
	fmt.Fprintf(w, "  once applied, %s becomes %s unless it changed since version %d\n",
		clean(resp.Conflict.ID), resp.Status, resp.Conflict.Version)
	if len(resp.SideEffects.SupersededUnits) > 0 {
		fmt.Fprintf(w, "  superseded  %s\n", cleanList(resp.SideEffects.SupersededUnits))
	}
}
