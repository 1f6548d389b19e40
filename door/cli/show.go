package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) showCmd() *cobra.Command {
	var asJSON, threeWay, suggest bool
	cmd := &cobra.Command{
		Use:   "show CONFLICT|UNIT",
		Short: "Show a conflict (both units, votes, resolution, rules, history) or a unit",
		Long: `Show everything known of one conflict, or of one unit.

For a conflict: both units, the votes, the resolution, what each rule picks and
its history. The version it prints is what merge and vote take as
--expect-version, so that a decision made on what you read is refused if
someone else decided first.

--three-way prints both units' texts against their common ancestor (the
earlier unit both revise through supersedes relations), marking what A
changed, what B changed and what both changed differently; without an
ancestor it compares the two. --suggest prints the suggested synthesis,
ready for merge --strategy synthesis --synthesis-file -. See
docs/three-way.md.

For a unit (a synthesis unit a decision created, say): its text, author,
status and confidence, its relations both ways and the conflicts it is in.

--json prints the detail object of either.`,
		Args: exactArgs(1, "one conflict or unit id"),
		RunE: a.deskCommand(func(ctx context.Context, _ config.Config, svc review.Desk, args []string) error {
			d, err := svc.Detail(ctx, args[0])
			if model.HasCode(err, model.CodeConflictNotFound) {
				return a.showUnit(ctx, svc, args[0], asJSON)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, d)
			}
			if threeWay || suggest {
				c, base, err := comparison(ctx, svc, d)
				if err != nil {
					return err
				}
				if suggest {
					printSuggestion(a.stdout, a.stderr, d, c)
				} else {
					printThreeWay(a.stdout, d, c, base)
				}
				return nil
			}
			printDetail(a.stdout, d, time.Now())
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&threeWay, "three-way", false, "compare both units with their common ancestor, word by word")
	cmd.Flags().BoolVar(&suggest, "suggest", false, "print the suggested synthesis of both units")
	cmd.MarkFlagsMutuallyExclusive("json", "three-way", "suggest")
	return cmd
}

// printDetection says why the field detected c, when it did: the signal,
// its score and level, and the phrase of each unit; and, while it is
// open, how to say it is not a contradiction.
func printDetection(w io.Writer, c model.Conflict) {
	d := c.Detection
	if d == nil {
		return
	}
	fmt.Fprintf(w, "why        %s\n", clean(d.Reason()))
	fmt.Fprintf(w, "           A says %s\n", clip(quoteOf(d.PhraseA.Text), 200))
	fmt.Fprintf(w, "           B says %s\n", clip(quoteOf(d.PhraseB.Text), 200))
	if c.Status.Open() {
		fmt.Fprintf(w, "           not a contradiction? `arbiter merge %s --strategy dismiss --rationale TEXT` says so, and the pair is not detected again\n",
			shellQuote(clean(c.ID)))
	}
}

func quoteOf(s string) string { return "“" + strings.Join(strings.Fields(s), " ") + "”" }

// showUnit prints a unit, or says that the id is neither a conflict nor a
// unit.
func (a *app) showUnit(ctx context.Context, svc review.Desk, id string, asJSON bool) error {
	d, err := svc.Unit(ctx, id)
	if model.HasCode(err, model.CodeUnitNotFound) {
		return notFound(id)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return jsonout.Write(a.stdout, d)
	}
	printUnit(a.stdout, d, time.Now())
	return nil
}

// printUnit prints a unit for people: what printSide prints of a side,
// and the relations other units carry to it and its conflicts.
func printUnit(w io.Writer, d model.UnitDetail, now time.Time) {
	printUnitHead(w, clean(d.Unit.ID), d.Unit, d.Agent, now)
	if p := d.Provenance; p != nil {
		fmt.Fprintf(w, "   joined      from %s as %s\n", clean(p.ForkName), clean(p.ForkID))
	}
	for _, l := range d.Incoming {
		rel := fmt.Sprintf("%s %s", clean(l.From), clean(string(l.Type)))
		if l.Description != "" {
			rel += ": " + clean(l.Description)
		}
		fmt.Fprintf(w, "   from        %s\n", rel)
	}
	for _, c := range d.Conflicts {
		other, _ := c.Other(d.Unit.ID)
		line := fmt.Sprintf("%s (%s) %s against %s", clean(c.ID), c.Side(d.Unit.ID), c.Status, clean(other))
		if r := c.Resolution; r != nil {
			line += fmt.Sprintf(", %s by %s", clean(string(r.Strategy)), clean(r.ResolvedBy))
			if r.WinnerID != nil {
				line += ": " + clean(*r.WinnerID) + " prevails"
			}
		}
		fmt.Fprintf(w, "   conflict    %s\n", line)
	}
	fmt.Fprintf(w, "   content\n%s\n", indentBlock(d.Unit.Content, "     "))
}

// printDetail prints a conflict for people. Every piece of field text goes
// through clean, clip or indentBlock.
func printDetail(w io.Writer, d model.ConflictDetail, now time.Time) {
	c := d.Conflict
	fmt.Fprintf(w, "%s  %s  %s  version %d\n", clean(c.ID), clean(string(c.Type)), c.Status, c.Version)
	if c.Status.Open() {
		fmt.Fprintf(w, "  decide on this reading with --expect-version %d\n", c.Version)
	}
	fmt.Fprintf(w, "\n%s\n", indentBlock(c.Description, "  "))
	if j, ok := model.JoinOf(d.Events); ok {
		fmt.Fprintf(w, "  %s\n", clean(model.JoinLine(j)))
	}
	fmt.Fprintf(w, "\ndetected   %s at epoch %d, %s\n", clean(string(c.DetectedBy)), c.Epoch, when(c.DetectedAt, now))
	printDetection(w, c)
	if anc := d.Ancestor; anc != nil {
		fmt.Fprintf(w, "ancestor   %s: A %s, B %s (show --three-way compares them)\n", clean(anc.UnitID), lineage(anc.PathA), lineage(anc.PathB))
	}
	if e := c.Escalation; e != nil {
		fmt.Fprintf(w, "escalated  by %s at epoch %d, %s\n%s\n", clean(e.By), e.Epoch, when(e.At, now), indentBlock(e.Reason, "           "))
	}
	if e := c.VoteOpened; e != nil {
		fmt.Fprintf(w, "vote       opened by %s at epoch %d, %s\n%s\n", clean(e.By), e.Epoch, when(e.At, now), indentBlock(e.Reason, "           "))
	}
	if e := c.Rework; e != nil {
		fmt.Fprintf(w, "rework     sent back by %s at epoch %d, %s\n%s\n", clean(e.By), e.Epoch, when(e.At, now), indentBlock(e.Reason, "           "))
	}
	if r := c.Route; r != nil {
		who := r.Owner
		if who == "" {
			who = "any human operator"
			if c.Status == model.StatusPendingVote {
				who = "the eligible voters"
			} else if c.Status == model.StatusResolving {
				who = "its authors"
			}
		}
		fmt.Fprintf(w, "routed     to %s, %s\n           %s\n", clean(who), when(r.Since, now), clean(r.DescribeDeadline(now)))
	}
	if p := c.Proposal; p != nil {
		fmt.Fprintf(w, "proposal   %s proposes: %s\n", clean(p.By), clean(p.Describe(c)))
		if p.Synthesis != nil {
			fmt.Fprintf(w, "%s\n", indentBlock(*p.Synthesis, "           "))
		}
		if c.Status.Open() {
			fmt.Fprintf(w, "           approve it with `arbiter approve %s --rationale TEXT`, modify it with --winner or --synthesis, or send it back with `arbiter rework`\n", shellQuote(clean(c.ID)))
		}
	}
	if c.ReworkOf != "" {
		fmt.Fprintf(w, "continues  %s, sent back for rework: this conflict opened on its revision\n", clean(c.ReworkOf))
	}

	printSide(w, "A", d.A, now)
	printSide(w, "B", d.B, now)

	if c.Status == model.StatusPendingVote || len(d.Ballots) > 0 {
		t := d.Tally
		fmt.Fprintf(w, "\nvotes  A %d, B %d: %d of quorum %d, tie rule %s\n", t.ForA, t.ForB, t.Total(), t.Quorum, d.Policy.Tie)
		for _, b := range d.Ballots {
			fmt.Fprintf(w, "  %s for %s at epoch %d: %s\n", clean(b.VoterID), sideOf(c, b.Choice), b.Epoch, clean(b.Rationale))
		}
	}

	if r := c.Resolution; r != nil {
		fmt.Fprintf(w, "\nresolution  %s by %s at epoch %d, %s\n", clean(string(r.Strategy)), clean(r.ResolvedBy), r.EpochResolved, when(r.ResolvedAt, now))
		if r.WinnerID != nil {
			fmt.Fprintf(w, "  winner     %s\n", sideOf(c, *r.WinnerID))
		}
		if r.SynthesisUnitID != nil {
			fmt.Fprintf(w, "  synthesis  %s\n", clean(*r.SynthesisUnitID))
		}
		fmt.Fprintf(w, "  rationale\n%s\n", indentBlock(r.Rationale, "    "))
	}

	fmt.Fprintf(w, "\nwhat each rule picks\n")
	for _, p := range d.Picks {
		pick := "tie"
		if !p.Tie {
			pick = sideOf(c, p.WinnerID)
		}
		fmt.Fprintf(w, "  %-20s %-16s %s\n", p.Strategy, pick, clean(p.Why))
	}

	if len(d.Notifications) > 0 {
		fmt.Fprintf(w, "\nnotifications\n")
		for _, n := range d.Notifications {
			action := ""
			if n.RequiresAction {
				action = " [action]"
			}
			fmt.Fprintf(w, "  #%d epoch %d to %s: %s%s: %s\n", n.ID, n.Epoch, clean(n.AgentID), clean(n.Event), action, clean(n.Summary))
		}
	}
	if len(d.Events) > 0 {
		fmt.Fprintf(w, "\nevents\n")
		for _, e := range d.Events {
			unit := ""
			if e.UnitID != nil {
				unit = " on " + clean(*e.UnitID)
			}
			fmt.Fprintf(w, "  #%d epoch %d %s by %s%s, %s\n", e.ID, e.Epoch, clean(e.Operation), clean(e.AgentID), unit, when(e.At, now))
		}
	}
}

// printSide prints one unit of a conflict.
func printSide(w io.Writer, label string, s model.Side, now time.Time) {
	printUnitHead(w, label+"  "+clean(s.Unit.ID), s.Unit, s.Agent, now)
	fmt.Fprintf(w, "   supporters  %s\n", cleanList(s.Supporters))
	fmt.Fprintf(w, "   content\n%s\n", indentBlock(s.Unit.Content, "     "))
}

// printUnitHead prints what is known of a unit but its content, under a
// title: who recorded it, when, how sure, why, and its relations.
func printUnitHead(w io.Writer, title string, u model.Unit, ag *model.Agent, now time.Time) {
	fmt.Fprintf(w, "\n%s  %s, %s, %s, epoch %d\n", title, clean(string(u.Type)), clean(string(u.Mode)), clean(string(u.Status)), u.Epoch)
	by := fmt.Sprintf("%s (%s)", clean(u.Source.AgentID), clean(u.Source.AgentRole))
	if ag != nil {
		by += fmt.Sprintf(", %s, authority %d", clean(string(ag.Kind)), ag.Authority)
	}
	fmt.Fprintf(w, "   by          %s\n", by)
	fmt.Fprintf(w, "   recorded    %s\n", when(u.Source.Timestamp, now))
	if u.Source.SessionID != nil {
		fmt.Fprintf(w, "   session     %s\n", clean(*u.Source.SessionID))
	}
	score := "none"
	if u.Confidence.Score != nil {
		score = fmt.Sprintf("%.2f", *u.Confidence.Score)
	}
	fmt.Fprintf(w, "   confidence  %s: %s\n", score, clean(u.Confidence.Reasoning))
	fmt.Fprintf(w, "   evidence    %s\n", cleanList(u.Confidence.Evidence))
	fmt.Fprintf(w, "   assumptions %s\n", cleanList(u.Confidence.Assumptions))
	fmt.Fprintf(w, "   intent      %s\n", clean(u.Intent.Purpose))
	if u.Intent.TaskID != nil {
		fmt.Fprintf(w, "   task        %s\n", clean(*u.Intent.TaskID))
	}
	if u.Intent.Question != nil {
		fmt.Fprintf(w, "   question    %s\n", clean(*u.Intent.Question))
	}
	for _, r := range u.Relations {
		rel := fmt.Sprintf("%s %s", clean(string(r.Type)), clean(r.TargetID))
		if r.Description != "" {
			rel += ": " + clean(r.Description)
		}
		fmt.Fprintf(w, "   relation    %s\n", rel)
	}
}

// sideOf is "mem-003 (A)" for a unit of c.
func sideOf(c model.Conflict, id string) string {
	if s := c.Side(id); s != "" {
		return fmt.Sprintf("%s (%s)", clean(id), s)
	}
	return clean(id)
}

// notFound is show's answer for an id that is neither a conflict nor a
// unit, in the words of what the id looks like.
func notFound(id string) error {
	switch {
	case strings.HasPrefix(id, "mem-"):
		return model.Errorf(model.OpAttune, model.CodeUnitNotFound, "`arbiter show CONFLICT` names the units of a conflict",
			"there is no unit %q", id)
	case strings.HasPrefix(id, "conflict-"):
		return model.Errorf(model.OpAttune, model.CodeConflictNotFound, "list the conflicts with `arbiter list --status all`",
			"there is no conflict %q", id)
	}
	return model.Errorf(model.OpAttune, model.CodeConflictNotFound, "list the conflicts with `arbiter list --status all`",
		"there is no conflict or unit %q", id)
}
