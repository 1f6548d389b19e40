package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strings"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// escalationFlags are the policy's settings for escalations and
// deadlines, and how readily the field detects contradictions, as init and
// policy set take them.
type escalationFlags struct {
	owners         []string
	timeout        string
	fallback       string
	ownersDecide   bool
	voteMinBallots int
	sensitivity    string
}

func (f *escalationFlags) add(fl *pflag.FlagSet, removable bool) {
	owner := "TYPE=ID: escalations of TYPE conflicts are routed to the person ID (repeatable)"
	if removable {
		owner += "; TYPE= routes them to any human operator again"
	}
	fl.StringArrayVar(&f.owners, "owner", nil, owner)
	fl.StringVar(&f.timeout, "escalation-timeout", "", "how long an escalation, a vote or a rework waits before its fallback executes: 90s, 4h, 2d; 0 for no deadline (default none)")
	fl.StringVar(&f.fallback, "escalation-fallback", "", "what executes at the deadline unless the escalation names its own: dismiss, rework, last_write_wins, confidence_weighted, evidence_count or escalate:ID (default none: it stays, overdue)")
	fl.BoolVar(&f.ownersDecide, "owners-decide", false, "the person an escalation is routed to may decide it, whatever their authority")
	fl.IntVar(&f.voteMinBallots, "vote-min-ballots", 1, "ballots a vote needs at its deadline for its majority to prevail")
	fl.StringVar(&f.sensitivity, "detection-sensitivity", "", "how readily RECORD finds contradictions nobody declared: off, low, medium or high (a new field: medium; docs/detection.md)")
}

// apply sets on p the settings given on the command line (set says which).
func (f escalationFlags) apply(set func(string) bool, p *model.Policy) error {
	if p.Owners == nil {
		p.Owners = map[model.ConflictType]string{}
	}
	for _, tv := range f.owners {
		t, id, ok := strings.Cut(tv, "=")
		t, id = strings.TrimSpace(t), strings.TrimSpace(id)
		switch {
		case !ok:
			return usageErrorf("--owner %q: want TYPE=ID, e.g. factual=lead-priya", tv)
		case !model.ConflictType(t).Valid():
			return usageErrorf("--owner %q: %q is not a conflict type (%s)", tv, t, joinConflictTypes())
		case id == "":
			delete(p.Owners, model.ConflictType(t))
		default:
			p.Owners[model.ConflictType(t)] = id
		}
	}
	if set("escalation-timeout") {
		switch t := strings.TrimSpace(f.timeout); t {
		case "0", "", "none":
			p.EscalationTimeout = 0
		default:
			d, err := model.ParseDeadline(t)
			if err != nil {
				return usageErrorf("--escalation-timeout: %v", err)
			}
			p.EscalationTimeout = d
		}
	}
	if set("escalation-fallback") {
		fb := strings.TrimSpace(f.fallback)
		if fb == "none" {
			fb = ""
		}
		fallback, err := model.ParseFallback(fb)
		if err != nil {
			return usageErrorf("--escalation-fallback: %v", err)
		}
		p.EscalationFallback = fallback
	}
	if set("owners-decide") {
		p.OwnersDecide = f.ownersDecide
	}
	if set("vote-min-ballots") {
		p.VoteMinBallots = f.voteMinBallots
	}
	if set("detection-sensitivity") {
		level, err := model.ParseSensitivity(f.sensitivity)
		if err != nil {
			return usageErrorf("--detection-sensitivity: %v", err)
		}
		p.DetectionSensitivity = level
	}
	if err := p.CheckEscalation(); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// policyJSON is the policy as policy --json prints it: durations as text.
type policyJSON struct {
	model.Policy
	EscalationTimeout string `json:"escalation_timeout"`
}

func toPolicyJSON(p model.Policy) policyJSON {
	out := policyJSON{Policy: p}
	if p.EscalationTimeout > 0 {
		out.EscalationTimeout = model.FormatDeadline(p.EscalationTimeout)
	}
	return out
}

func (a *app) policyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "policy [set ...]",
		Short: "Show the field's governance, or change it (policy set)",
		Long: `Show the field's governance: its level, votes, recusal, override, who has
authority over each conflict type, who escalations of each type are routed
to, and the deadlines and fallbacks of escalations, votes and reworks.
--json prints it as an object (durations as text, e.g. "4h").

arbiter policy set changes it.`,
		Args: noCommand,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			p, err := svc.Policy(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, toPolicyJSON(p))
			}
			printPolicy(a.stdout, p)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(callerNeeded(a.policySetCmd()))
	return cmd
}

func (a *app) policySetCmd() *cobra.Command {
	var (
		f      escalationFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "set [--owner TYPE=ID ...] [--escalation-timeout D] [--escalation-fallback F] [--owners-decide=BOOL] [--vote-min-ballots N] [--detection-sensitivity L]",
		Short: "Change the field's routing of escalations, their deadlines and its detection (a human operator)",
		Long: `Change the field's settings for escalations and detection, as --as, a human operator:

  --owner TYPE=ID            route escalations of TYPE conflicts to the person ID
                             (TYPE= routes them to any human operator again)
  --escalation-timeout D     the default deadline of escalations, votes and
                             reworks (90s, 4h, 2d; 0 for none)
  --escalation-fallback F    what executes at it (dismiss, rework, a rule,
                             escalate:ID; none)
  --owners-decide=BOOL       the owner may decide what is routed to them
  --vote-min-ballots N       ballots a vote needs at its deadline for its
                             majority to prevail
  --detection-sensitivity L  how readily RECORD finds the contradictions
                             nobody declared: off, low, medium, high
                             (docs/detection.md); units already recorded
                             are compared by arbiter detect --mode scan

Only the settings given change. An owner may be registered later; routing
checks them when it uses them. The change is logged (a POLICY event with the
policy before and after) and every human operator is told. What is already
routed keeps its owner and deadline.`,
		Args: cobra.NoArgs,
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			return a.withField(cmd.Context(), cfg, func(ctx context.Context, svc *review.Service) error {
				a.sweepFirst(ctx, svc)
				var changes []string
				p, err := svc.UpdatePolicy(ctx, cfg.As, func(p *model.Policy) error {
					before := *p
					before.Owners = maps.Clone(p.Owners)
					if err := f.apply(cmd.Flags().Changed, p); err != nil {
						return err
					}
					changes = review.PolicyChanges(before, *p)
					return nil
				})
				if err != nil {
					return err
				}
				if asJSON {
					return jsonout.Write(a.stdout, toPolicyJSON(p))
				}
				if len(changes) == 0 {
					fmt.Fprintln(a.stdout, "the policy is unchanged")
				} else {
					fmt.Fprintf(a.stdout, "changed the policy: %s\n", clean(strings.Join(changes, "; ")))
				}
				a.noteUnregisteredOwners(ctx, svc, p)
				return nil
			})
		}),
	}
	f.add(cmd.Flags(), true)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new policy as JSON")
	return cmd
}

// noteUnregisteredOwners says on stderr which owners are not registered
// people yet: escalations of their types go to any human operator until
// they are.
func (a *app) noteUnregisteredOwners(ctx context.Context, svc *review.Service, p model.Policy) {
	agents, err := svc.Agents(ctx)
	if err != nil {
		return
	}
	people := map[string]bool{}
	for _, ag := range agents {
		people[ag.ID] = ag.Kind == model.KindHuman
	}
	for _, t := range model.ConflictTypes {
		if id, ok := p.Owners[t]; ok && !people[id] {
			fmt.Fprintf(a.stderr, "arbiter: note: %s, the owner of %s conflicts, is not a registered person yet; until they are, those escalations go to any human operator\n", clean(id), t)
		}
	}
	if to := p.EscalationFallback.EscalateTo(); to != "" && !people[to] {
		fmt.Fprintf(a.stderr, "arbiter: note: %s (escalate:%s) is not a registered person yet; that fallback leaves conflicts with any human operator until they are\n", clean(to), clean(to))
	}
}

// printPolicy prints the field's governance for people.
func printPolicy(w io.Writer, p model.Policy) {
	fmt.Fprintf(w, "policy       %s\n", describePolicy(p))
	var authority []string
	for _, t := range model.ConflictTypes {
		if role, ok := p.AuthorityRoles[t]; ok {
			authority = append(authority, fmt.Sprintf("%s=%s", t, clean(role)))
		}
	}
	if len(authority) == 0 {
		authority = []string{"none (only a human operator decides by authority)"}
	}
	fmt.Fprintf(w, "authority    %s\n", strings.Join(authority, " "))
	fmt.Fprintf(w, "owners       %s\n", describeOwners(p))
	fmt.Fprintf(w, "deadlines    %s\n", describeDeadlines(p))
	fmt.Fprintf(w, "votes        quorum %d, tie %s; at a deadline a majority of at least %s prevails\n",
		p.Quorum, p.Tie, plural(max(1, p.VoteMinBallots), "ballot", "ballots"))
	fmt.Fprintf(w, "detection    %s\n", describeDetection(p.DetectionSensitivity))
	if len(p.Refused) > 0 {
		for s, why := range p.Refused {
			fmt.Fprintf(w, "refuses      %s: %s\n", s, clean(why))
		}
	}
}

// describeOwners is "factual=lead-kenji interpretive=lead-priya, who decide
// what is routed to them", or "none: escalations go to any human operator".
func describeOwners(p model.Policy) string {
	var parts []string
	for _, t := range model.ConflictTypes {
		if id, ok := p.Owners[t]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", t, clean(id)))
		}
	}
	if len(parts) == 0 {
		return "none: escalations go to any human operator"
	}
	s := strings.Join(parts, " ") + "; other types go to any human operator"
	if p.OwnersDecide {
		s += "; owners decide what is routed to them"
	} else {
		s += "; only a human operator decides (owners-decide is off)"
	}
	return s
}

// describeDeadlines is "escalations, votes and reworks wait 8h, then
// dismiss", or "none by default".
func describeDeadlines(p model.Policy) string {
	if p.EscalationTimeout <= 0 {
		return "none by default: what waits for people waits until they answer"
	}
	s := "escalations, votes and reworks wait " + model.FormatDeadline(p.EscalationTimeout)
	if p.EscalationFallback == "" {
		return s + ", then stay, overdue (no fallback)"
	}
	return s + ", then " + clean(string(p.EscalationFallback))
}

// describeDetection is "medium: RECORD compares each new unit with the
// units most likely about the same thing", or "off: …".
func describeDetection(level model.Sensitivity) string {
	if !level.On() {
		return "off: only contradicts relations open conflicts (policy set --detection-sensitivity medium turns it on)"
	}
	return string(level) + ": RECORD compares each new unit with the units most likely about the same thing and opens the contradictions it finds"
}
