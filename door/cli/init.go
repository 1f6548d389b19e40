package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store/field"

	"github.com/spf13/cobra"
)

type initFlags struct {
	demo              bool
	level             int
	quorum            int
	tie               string
	authority         []string
	voterRoles        []string
	voterMinAuthority int
	recusal           bool
	operatorOverride  bool
	escalation        escalationFlags
}

func (a *app) initCmd() *cobra.Command {
	var f initFlags
	cmd := &cobra.Command{
		Use:   "init --db FILE",
		Short: "Create a new field, empty or with the demo",
		Long: `Create a new field at --db FILE with the given policy. An existing file is
never overwritten. With --demo the field gets the demo's agents, units and
conflicts, and the demo's policy unless flags say otherwise; under another
policy the demo's steps that policy refuses are left out (a decision it does
not allow becomes an escalation, or the conflict stays detected at level 1).`,
		Args: cobra.NoArgs,
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			base := model.DefaultPolicy()
			if f.demo {
				base = demo.Policy()
			}
			p, err := f.policy(cmd, base)
			if err != nil {
				return err
			}
			return createField(cmd.Context(), a.stdout, cfg.DB, p, f.demo)
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.demo, "demo", false, "fill the field with the demo's agents, units and conflicts")
	fl.IntVar(&f.level, "level", 3, "conformance level, 1 to 3: bounds the strategies (2: MERGE; 3: all seven)")
	fl.IntVar(&f.quorum, "quorum", 0, "ballots that close a vote (default 3)")
	fl.StringVar(&f.tie, "tie", "", "what a tie at quorum does: stay (the vote stays open) or escalate (default escalate)")
	fl.StringArrayVar(&f.authority, "authority", nil, "TYPE=ROLE: the role with the final say on TYPE conflicts (repeatable)")
	fl.StringSliceVar(&f.voterRoles, "voter-roles", nil, "roles that may vote, comma-separated (default any role)")
	fl.IntVar(&f.voterMinAuthority, "voter-min-authority", 0, "least authority of a voter, 0 to 10 (default 6)")
	fl.BoolVar(&f.recusal, "recusal", true, "authors may not decide or vote on conflicts about their own units (--recusal=false to allow it)")
	fl.BoolVar(&f.operatorOverride, "operator-override", false, "a human operator may close a vote short of its quorum with a decision of their own")
	f.escalation.add(fl, false)
	return cmd
}

// policy is base with the flags given on the command line applied.
func (f initFlags) policy(cmd *cobra.Command, base model.Policy) (model.Policy, error) {
	p := base
	p.AuthorityRoles = maps.Clone(base.AuthorityRoles)
	if p.AuthorityRoles == nil {
		p.AuthorityRoles = map[model.ConflictType]string{}
	}
	p.VoterRoles = slices.Clone(base.VoterRoles)
	p.Owners = maps.Clone(base.Owners)
	set := cmd.Flags().Changed
	if set("level") {
		p.Level = f.level
	}
	if set("quorum") {
		p.Quorum = f.quorum
	}
	if set("tie") {
		p.Tie = model.TieRule(f.tie)
	}
	if set("recusal") {
		p.Recusal = f.recusal
	}
	if set("operator-override") {
		p.OperatorOverride = f.operatorOverride
	}
	if set("voter-min-authority") {
		p.VoterMinAuthority = f.voterMinAuthority
	}
	if set("voter-roles") {
		p.VoterRoles = nil
		for _, r := range f.voterRoles {
			if r = strings.TrimSpace(r); r != "" {
				p.VoterRoles = append(p.VoterRoles, r)
			}
		}
	}
	for _, tr := range f.authority {
		t, role, ok := strings.Cut(tr, "=")
		t, role = strings.TrimSpace(t), strings.TrimSpace(role)
		if !ok || role == "" {
			return p, usageErrorf("--authority %q: want TYPE=ROLE, e.g. factual=lead", tr)
		}
		if !model.ConflictType(t).Valid() {
			return p, usageErrorf("--authority %q: %q is not a conflict type (%s)", tr, t, joinConflictTypes())
		}
		p.AuthorityRoles[model.ConflictType(t)] = role
	}
	if err := f.escalation.apply(set, &p); err != nil {
		return p, err
	}
	switch {
	case p.Level < 1 || p.Level > 3:
		return p, usageErrorf("--level %d: use 1, 2 or 3", p.Level)
	case p.Quorum < 1:
		return p, usageErrorf("--quorum %d: a vote needs at least one ballot", p.Quorum)
	case !p.Tie.Valid():
		return p, usageErrorf("--tie %q: use stay or escalate", p.Tie)
	case p.VoterMinAuthority < 0 || p.VoterMinAuthority > 10:
		return p, usageErrorf("--voter-min-authority %d: use 0 to 10", p.VoterMinAuthority)
	}
	return p, nil
}

func joinConflictTypes() string {
	names := make([]string, len(model.ConflictTypes))
	for i, t := range model.ConflictTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// createField makes a new field at path with policy p, fills it with the
// demo if asked, and prints what it holds. A field whose demo could not be
// filled in is removed again: no half-made field stays behind.
func createField(ctx context.Context, w io.Writer, path string, p model.Policy, withDemo bool) (err error) {
	st, err := field.Create(ctx, path, p)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && withDemo {
			st.Remove(ctx)
		} else {
			st.Close()
		}
	}()
	svc := review.New(st)
	if withDemo {
		// The story happens demo.StoryAge before now, so that its
		// deadlines are near or past.
		if err := demo.Populate(ctx, review.New(st).WithClock(demo.Clock(time.Now))); err != nil {
			// %v, not %w: this is init failing, not the field refusing
			// an operation of the caller's.
			return fmt.Errorf("%s: filling in the demo failed, so the file was removed: %v", path, err)
		}
	}
	var units int64
	if err := readCounts(ctx, st, func(tx countTx) (err error) { units, err = tx.UnitCount(); return err }); err != nil {
		return err
	}
	agents, err := svc.Agents(ctx)
	if err != nil {
		return err
	}
	counts, err := svc.Counts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "created %s\n", clean(st.Name()))
	fmt.Fprintf(w, "  policy: %s\n", describePolicy(p))
	fmt.Fprintf(w, "  holds:  %s, %s, %s\n", plural(len(agents), "agent", "agents"),
		plural(int(units), "unit", "units"), describeCounts(counts))
	return nil
}

func describePolicy(p model.Policy) string {
	voters := fmt.Sprintf("authority %d+", p.VoterMinAuthority)
	if len(p.VoterRoles) > 0 {
		voters += " in roles " + cleanList(p.VoterRoles)
	}
	s := fmt.Sprintf("level %d, quorum %d, tie %s, voters %s", p.Level, p.Quorum, p.Tie, voters)
	if p.Recusal {
		s += ", recusal"
	}
	if p.OperatorOverride {
		s += ", operator override"
	}
	if len(p.AuthorityRoles) > 0 {
		var parts []string
		for _, t := range model.ConflictTypes {
			if role, ok := p.AuthorityRoles[t]; ok {
				parts = append(parts, fmt.Sprintf("%s=%s", t, clean(role)))
			}
		}
		s += ", authority " + strings.Join(parts, " ")
	}
	if len(p.Owners) > 0 {
		var parts []string
		for _, t := range model.ConflictTypes {
			if id, ok := p.Owners[t]; ok {
				parts = append(parts, fmt.Sprintf("%s=%s", t, clean(id)))
			}
		}
		s += ", owners " + strings.Join(parts, " ")
		if p.OwnersDecide {
			s += " (who decide)"
		}
	}
	if p.EscalationTimeout > 0 {
		s += ", deadline " + model.FormatDeadline(p.EscalationTimeout)
		if p.EscalationFallback != "" {
			s += " then " + clean(string(p.EscalationFallback))
		}
	}
	if p.VoteMinBallots > 1 {
		s += fmt.Sprintf(", votes decide at a deadline with %d ballots", p.VoteMinBallots)
	}
	return s
}

// describeCounts is "9 conflicts (5 escalated, 2 pending_vote, 2 detected)".
func describeCounts(counts map[model.ConflictStatus]int) string {
	total := 0
	var parts []string
	for _, s := range statusOrder {
		if n := counts[s]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	out := plural(total, "conflict", "conflicts")
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, ", ") + ")"
	}
	return out
}

// statusOrder is the order statuses are shown in: those waiting for
// people first.
var statusOrder = []model.ConflictStatus{
	model.StatusEscalated, model.StatusPendingVote, model.StatusDetected, model.StatusResolving, model.StatusResolved,
}
