package demo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"arbiter/internal/threeway"
	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
)

// populated creates a demo field in a temporary directory.
func populated(t *testing.T) (context.Context, store.Field, *review.Service) {
	t.Helper()
	ctx := context.Background()
	st, err := field.Create(ctx, filepath.Join(t.TempDir(), "demo.field"), demo.Policy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := review.New(st)
	start := time.Now()
	if err := demo.Populate(ctx, svc); err != nil {
		t.Fatal(err)
	}
	t.Logf("Populate took %s", time.Since(start))
	return ctx, st, svc
}

func conflicts(t *testing.T, ctx context.Context, svc *review.Service, statuses ...model.ConflictStatus) []model.ConflictSummary {
	t.Helper()
	cs, err := svc.List(ctx, model.ListQuery{Statuses: statuses})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func detail(t *testing.T, ctx context.Context, svc *review.Service, id string) model.ConflictDetail {
	t.Helper()
	d, err := svc.Detail(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPopulateFillsEveryStatusButResolving(t *testing.T) {
	ctx, _, svc := populated(t)
	n, err := svc.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("counts: %v", n)
	want := map[model.ConflictStatus]int{
		model.StatusEscalated: 5, model.StatusPendingVote: 3, model.StatusResolved: 8, model.StatusDetected: 2,
	}
	for s, least := range want {
		if n[s] < least {
			t.Errorf("%s: %d conflicts, want at least %d", s, n[s], least)
		}
	}
	if n[model.StatusResolving] != 0 {
		t.Errorf("resolving: %d conflicts; the API cannot reach it", n[model.StatusResolving])
	}
}

func TestPopulateOpensConflictsOfEveryType(t *testing.T) {
	ctx, _, svc := populated(t)
	seen := map[model.ConflictType]bool{}
	for _, c := range conflicts(t, ctx, svc) {
		seen[c.Type] = true
		if c.Description == "" || strings.HasSuffix(c.Description, "contradicts "+c.UnitA) {
			t.Errorf("%s has no real description: %q", c.ID, c.Description)
		}
	}
	for _, ct := range model.ConflictTypes {
		if !seen[ct] {
			t.Errorf("no %s conflict", ct)
		}
	}
}

func TestPopulateUsesEveryStrategy(t *testing.T) {
	ctx, _, svc := populated(t)
	seen := map[model.Strategy]bool{}
	for _, c := range conflicts(t, ctx, svc) {
		if c.Escalation != nil {
			seen[model.HumanEscalation] = true
		}
		if c.VoteOpened != nil {
			seen[model.Vote] = true
		}
		if r := c.Resolution; r != nil {
			seen[r.Strategy] = true
			if strings.TrimSpace(r.Rationale) == "" {
				t.Errorf("%s resolved without a rationale", c.ID)
			}
		}
	}
	for _, s := range model.Strategies {
		if !seen[s] {
			t.Errorf("strategy %s appears nowhere", s)
		}
	}
}

func TestEveryResolutionKindIsPresent(t *testing.T) {
	ctx, _, svc := populated(t)
	got := map[model.Strategy]int{}
	var byOperatorAfterEscalation, closedByVote bool
	for _, c := range conflicts(t, ctx, svc, model.StatusResolved) {
		r := c.Resolution
		got[r.Strategy]++
		if c.Escalation != nil && r.ResolvedBy == demo.Operator {
			byOperatorAfterEscalation = true
		}
		if r.Strategy == model.Vote && c.Tally != nil && c.Tally.Total() >= 3 {
			closedByVote = true
		}
	}
	for _, s := range []model.Strategy{model.LastWriteWins, model.ConfidenceWeighted, model.EvidenceCount,
		model.Authority, model.Synthesis, model.Vote, model.Dismiss} {
		if got[s] == 0 {
			t.Errorf("no conflict resolved with %s", s)
		}
	}
	if !byOperatorAfterEscalation {
		t.Error("no escalated conflict was then decided by the operator")
	}
	if !closedByVote {
		t.Error("no vote reached its quorum of 3 ballots")
	}
}

func TestDeterministicResolutionsNameTheRulesPick(t *testing.T) {
	ctx, _, svc := populated(t)
	for _, c := range conflicts(t, ctx, svc, model.StatusResolved) {
		if !c.Resolution.Strategy.Deterministic() {
			continue
		}
		d := detail(t, ctx, svc, c.ID)
		pick := model.RulePick(c.Resolution.Strategy, d.A.Contender(), d.B.Contender())
		if pick.Tie || c.Resolution.WinnerID == nil || *c.Resolution.WinnerID != pick.WinnerID {
			t.Errorf("%s resolved with %s for %v; the rule picks %+v", c.ID, c.Resolution.Strategy, c.Resolution.WinnerID, pick)
		}
	}
}

func TestSynthesisSupersedesBothOriginals(t *testing.T) {
	ctx, _, svc := populated(t)
	for _, c := range conflicts(t, ctx, svc, model.StatusResolved) {
		if c.Resolution.Strategy != model.Synthesis {
			continue
		}
		if c.Resolution.SynthesisUnitID == nil {
			t.Fatalf("%s: synthesis without a new unit", c.ID)
		}
		d := detail(t, ctx, svc, c.ID)
		if d.A.Unit.Status != model.UnitSuperseded || d.B.Unit.Status != model.UnitSuperseded {
			t.Errorf("%s: originals are %s and %s, want both superseded", c.ID, d.A.Unit.Status, d.B.Unit.Status)
		}
	}
}

func TestEscalationsComeFromSeniorAgentsAndOneShowsTheRulesSplit(t *testing.T) {
	ctx, _, svc := populated(t)
	split := false
	for _, c := range conflicts(t, ctx, svc, model.StatusEscalated) {
		d := detail(t, ctx, svc, c.ID)
		by, err := svc.Agent(ctx, c.Escalation.By)
		if err != nil {
			t.Fatal(err)
		}
		if by.Kind != model.KindAgent || by.Authority < model.AuthoritySenior {
			t.Errorf("%s escalated by %s (%s, authority %d), want a senior agent", c.ID, by.ID, by.Kind, by.Authority)
		}
		if len(c.Escalation.Reason) < 80 {
			t.Errorf("%s: the escalation reason is too thin: %q", c.ID, c.Escalation.Reason)
		}
		winners := map[string]bool{}
		for _, p := range d.Picks {
			winners[p.WinnerID] = true // a tie counts as ""
		}
		if len(winners) > 1 {
			split = true
		}
	}
	if !split {
		t.Error("no escalated conflict where the deterministic rules disagree")
	}
}

func TestPendingVotesHaveDifferentTalliesBelowQuorum(t *testing.T) {
	ctx, _, svc := populated(t)
	totals := map[int]bool{}
	for _, c := range conflicts(t, ctx, svc, model.StatusPendingVote) {
		d := detail(t, ctx, svc, c.ID)
		if d.Tally.Reached() {
			t.Errorf("%s is pending with a tally at quorum: %+v", c.ID, d.Tally)
		}
		for _, b := range d.Ballots {
			if !strings.HasPrefix(b.VoterID, "lead-") || b.Rationale == "" {
				t.Errorf("%s: ballot %+v", c.ID, b)
			}
		}
		totals[d.Tally.Total()] = true
	}
	for _, n := range []int{0, 1, 2} {
		if !totals[n] {
			t.Errorf("no pending vote with %d ballots", n)
		}
	}
}

func TestPeopleAreNotified(t *testing.T) {
	ctx, _, svc := populated(t)
	events := func(id string) map[string]int {
		ns, err := svc.Inbox(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, n := range ns {
			out[n.Event]++
		}
		return out
	}
	// Each escalation is told to the person it is routed to.
	for _, c := range conflicts(t, ctx, svc, model.StatusEscalated) {
		if c.Route == nil || c.Route.Owner == "" {
			t.Errorf("%s is routed to nobody in particular: %+v", c.ID, c.Route)
			continue
		}
		ns, err := svc.Inbox(ctx, c.Route.Owner, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		told := false
		for _, n := range ns {
			told = told || (n.Event == model.EventConflictEscalated && n.ConflictID != nil && *n.ConflictID == c.ID && n.RequiresAction)
		}
		if !told {
			t.Errorf("%s's owner %s was not told it is theirs", c.ID, c.Route.Owner)
		}
	}
	if n := events(demo.Operator)[model.EventConflictEscalated]; n < 2 {
		t.Errorf("the operator got %d escalation notices, want at least 2", n)
	}
	for _, lead := range demo.Leads {
		if n := events(lead)[model.EventVoteOpened]; n < 4 {
			t.Errorf("%s got %d vote notices, want at least 4", lead, n)
		}
	}
}

func TestContentIsVariedMarkdown(t *testing.T) {
	ctx, st, _ := populated(t)
	var contents []string
	err := st.Read(ctx, func(tx store.Tx) error {
		n, err := tx.UnitCount()
		if err != nil {
			return err
		}
		if n < 25 {
			t.Errorf("%d units, want at least 25", n)
		}
		for i := int64(1); i <= n; i++ {
			u, err := tx.Unit(fmt.Sprintf("mem-%03d", i))
			if err != nil {
				return err
			}
			contents = append(contents, u.Content)
			if u.Type != model.TypeSynthesis && (u.Confidence.Score == nil || *u.Confidence.Score < 0.4 || *u.Confidence.Score > 0.95) {
				t.Errorf("%s: confidence %v outside 0.4..0.95", u.ID, u.Confidence.Score)
			}
			if strings.Contains(u.Content, "´") {
				t.Errorf("%s still spells a backtick as ´", u.ID)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(contents, "\n\n")
	for name, re := range map[string]*regexp.Regexp{
		"table":         regexp.MustCompile(`(?m)^\|[-:| ]+\|$`),
		"go fence":      regexp.MustCompile("(?m)^```go$"),
		"sql fence":     regexp.MustCompile("(?m)^```sql$"),
		"yaml fence":    regexp.MustCompile("(?m)^```yaml$"),
		"bullet list":   regexp.MustCompile(`(?m)^- \S`),
		"numbered list": regexp.MustCompile(`(?m)^1\. \S`),
		"heading":       regexp.MustCompile(`(?m)^#{1,3} \S`),
		"quote":         regexp.MustCompile(`(?m)^> \S`),
	} {
		if !re.MatchString(all) {
			t.Errorf("no %s in any unit", name)
		}
	}
	short := 0
	for _, c := range contents {
		if len(c) < 160 && !strings.Contains(c, "\n") {
			short++
		}
	}
	if short < 5 {
		t.Errorf("%d one-line units, want a few", short)
	}
}

func TestPopulateRefusesAFieldThatIsNotEmpty(t *testing.T) {
	ctx, _, svc := populated(t)
	err := demo.Populate(ctx, svc)
	if !model.HasCode(err, model.CodeAgentIDTaken) {
		t.Fatalf("second Populate: %v, want %s", err, model.CodeAgentIDTaken)
	}
}

func TestPopulateFollowsAnotherPolicyInsteadOfFailing(t *testing.T) {
	for name, change := range map[string]func(*model.Policy){
		"quorum 2":            func(p *model.Policy) { p.Quorum = 2 },
		"quorum 4":            func(p *model.Policy) { p.Quorum = 4 },
		"quorum 2, tie stays": func(p *model.Policy) { p.Quorum, p.Tie = 2, model.TieStay },
		"level 2":             func(p *model.Policy) { p.Level = 2 },
		"level 1":             func(p *model.Policy) { p.Level = 1 },
		"detection off":       func(p *model.Policy) { p.DetectionSensitivity = model.SensitivityOff },
	} {
		t.Run(name, func(t *testing.T) {
			p := demo.Policy()
			change(&p)
			ctx := context.Background()
			st, err := field.Create(ctx, filepath.Join(t.TempDir(), "demo.field"), p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			svc := review.New(st)
			if err := demo.Populate(ctx, svc); err != nil {
				t.Fatalf("Populate: %v", err)
			}
			all := conflicts(t, ctx, svc)
			want := 18 + 3 // declared, and detected by the field
			if !p.DetectionSensitivity.On() {
				want = 18
			}
			if len(all) != want {
				t.Fatalf("%d conflicts, want the demo's %d", len(all), want)
			}
			for _, c := range all {
				d := detail(t, ctx, svc, c.ID)
				switch {
				case p.Level < 2 && c.Status != model.StatusDetected:
					t.Errorf("%s is %s on a level 1 field, which has no MERGE", c.ID, c.Status)
				case c.Resolution != nil && !p.Allows(c.Resolution.Strategy):
					t.Errorf("%s was resolved with %s, which level %d lacks", c.ID, c.Resolution.Strategy, p.Level)
				case c.Status == model.StatusPendingVote && !p.Allows(model.Vote):
					t.Errorf("%s is put to a vote at level %d", c.ID, p.Level)
				case c.Status == model.StatusPendingVote && d.Tally.Reached() && !(p.Tie == model.TieStay && d.Tally.ForA == d.Tally.ForB):
					t.Errorf("%s is still pending at %+v under quorum %d", c.ID, d.Tally, p.Quorum)
				case c.Resolution != nil && c.Resolution.Strategy == model.Vote && d.Tally.Total() < p.Quorum:
					t.Errorf("%s closed by vote with %d ballots under quorum %d", c.ID, d.Tally.Total(), p.Quorum)
				}
			}
		})
	}
}

func TestAnEscalatedConflictRevisesOneEarlierUnit(t *testing.T) {
	ctx, _, svc := populated(t)
	var found []string
	for _, c := range conflicts(t, ctx, svc, model.StatusEscalated) {
		d := detail(t, ctx, svc, c.ID)
		anc := d.Ancestor
		if anc == nil {
			continue
		}
		found = append(found, c.ID)
		if len(anc.PathA) != 2 || len(anc.PathB) != 2 || anc.PathA[0] != c.UnitA || anc.PathB[0] != c.UnitB {
			t.Errorf("%s: ancestor %+v, want both sides to supersede it directly", c.ID, anc)
		}
		base, err := svc.Unit(ctx, anc.UnitID)
		if err != nil {
			t.Fatal(err)
		}
		if base.Unit.Epoch >= d.A.Unit.Epoch || base.Unit.Epoch >= d.B.Unit.Epoch {
			t.Errorf("%s: the ancestor %s was not recorded first", c.ID, anc.UnitID)
		}
		for name, re := range map[string]*regexp.Regexp{
			"heading": regexp.MustCompile(`(?m)^#{1,3} \S`), "list": regexp.MustCompile(`(?m)^- \S`),
			"table": regexp.MustCompile(`(?m)^\|[-:| ]+\|$`), "code": regexp.MustCompile("`[^`]+`"),
		} {
			if !re.MatchString(base.Unit.Content) {
				t.Errorf("%s: the ancestor has no %s", c.ID, name)
			}
		}
		// A changes a table cell, B a list item, both the headline
		// sentence, differently.
		c3 := threeway.Compare(base.Unit.Content, d.A.Unit.Content, d.B.Unit.Content)
		kinds := map[string]threeway.Change{}
		for _, r := range c3.Regions {
			if r.Change == threeway.Unchanged {
				continue
			}
			line := r.Base
			for _, row := range strings.Split(base.Unit.Content, "\n") {
				if r.Base != "" && strings.Contains(row, r.Base) {
					line = row
					break
				}
			}
			switch {
			case strings.HasPrefix(line, "|"):
				kinds["table"] = r.Change
			case strings.HasPrefix(line, "- "):
				kinds["list"] = r.Change
			}
		}
		if kinds["table"] != threeway.ChangedA || kinds["list"] != threeway.ChangedB || c3.Count(threeway.Disputed) == 0 {
			t.Errorf("%s: table %s, list %s, %d disputed; want a table cell changed by A, a list item by B and a dispute",
				c.ID, kinds["table"], kinds["list"], c3.Count(threeway.Disputed))
		}
	}
	if len(found) != 1 {
		t.Fatalf("escalated conflicts with a common ancestor: %v, want one", found)
	}
}

// On the clock arbiter demo creates the field with (the story set
// demo.StoryAge back), the queue holds an escalation with a proposal, one
// with a tenth of its time left and a fallback, and one overdue without
// one; sweeping then reminds their owners and executes nothing, so the
// counts stay.
func TestTheDemosEscalationsHaveOwnersDeadlinesAndAProposal(t *testing.T) {
	ctx := context.Background()
	st, err := field.Create(ctx, filepath.Join(t.TempDir(), "demo.field"), demo.Policy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	created := time.Now()
	now := func() time.Time { return created }
	if err := demo.Populate(ctx, review.New(st).WithClock(demo.Clock(now))); err != nil {
		t.Fatal(err)
	}
	svc := review.New(st).WithClock(now)
	var proposal, close, overdue, toOperator, byPolicy int
	for _, c := range conflicts(t, ctx, svc, model.StatusEscalated) {
		r := c.Route
		if r == nil {
			t.Fatalf("%s has no route", c.ID)
		}
		d := detail(t, ctx, svc, c.ID)
		if d.Conflict.Proposal != nil {
			proposal++
			if d.Conflict.Proposal.By != d.Conflict.Escalation.By {
				t.Errorf("%s: proposed by %s, escalated by %s", c.ID, d.Conflict.Proposal.By, d.Conflict.Escalation.By)
			}
		}
		left, ok := r.Left(now())
		switch {
		case ok && left > 0 && r.Urgent(now()) && r.Fallback != "":
			close++
			if got := r.DueIn(now()); got != "1h" {
				t.Errorf("%s: %s left, want 1h", c.ID, got)
			}
		case ok && left <= 0 && r.Fallback == "":
			overdue++
		}
		if r.Owner == demo.Operator {
			toOperator++
		} else if d.Policy.Owners[c.Type] == r.Owner {
			byPolicy++
		}
	}
	if proposal < 2 || close != 1 || overdue != 1 || toOperator < 2 || byPolicy < 2 {
		t.Errorf("escalations: %d with a proposal, %d close to the deadline, %d overdue, %d to the operator, %d routed by the policy",
			proposal, close, overdue, toOperator, byPolicy)
	}
	rep, err := svc.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, a := range rep.Actions {
		kinds[a.Kind]++
	}
	if kinds[model.SweepReminder] != 1 || kinds[model.SweepOverdue] != 1 || kinds[model.SweepFallback] != 0 {
		t.Errorf("the first sweep did %v", rep.Actions)
	}
	if n, _ := svc.Counts(ctx); n[model.StatusEscalated] != 5 {
		t.Errorf("%d escalated after the sweep, want the demo's 5", n[model.StatusEscalated])
	}
}

// The demo's decisions take the time a team takes: each resolved
// conflict was decided minutes to hours after it was detected, on days
// before the one whose conflicts still wait; and its stats list people
// only by person.
func TestTheDemosDecisionsTakeHumanTimes(t *testing.T) {
	ctx, _, svc := populated(t)
	days := map[string]bool{}
	for _, c := range conflicts(t, ctx, svc, model.StatusResolved) {
		r := c.Resolution
		took := r.ResolvedAt.Sub(c.DetectedAt)
		if took < 10*time.Minute || took > 12*time.Hour {
			t.Errorf("%s was decided %s after it was detected, want minutes to hours", c.ID, took)
		}
		days[r.ResolvedAt.UTC().Format("2006-01-02")] = true
	}
	if len(days) < 4 {
		t.Errorf("the decisions fall on %d days, want them spread over the days before", len(days))
	}
	s, err := svc.Stats(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.DecisionTime {
		if d.Dimension == "person" && d.Key != demo.Operator {
			t.Errorf("by person lists %s, who is not one of the demo's people who decided", d.Key)
		}
	}
}

// The field finds three contradictions nobody declared as the story is
// recorded — a quantity, opposite terms and a change — each an ordinary
// conflict that says why.
func TestTheFieldDetectsWhatNobodyDeclared(t *testing.T) {
	ctx, _, svc := populated(t)
	seen := map[model.DetectSignal]int{}
	for _, c := range conflicts(t, ctx, svc, model.StatusDetected) {
		d := detail(t, ctx, svc, c.ID)
		det := d.Conflict.Detection
		if det == nil {
			continue
		}
		seen[det.Signal]++
		if det.Sensitivity != model.SensitivityMedium || det.PhraseA.Text == "" || det.PhraseB.Text == "" ||
			d.A.Unit.Content[det.PhraseA.Start:det.PhraseA.End] != det.PhraseA.Text ||
			d.B.Unit.Content[det.PhraseB.Start:det.PhraseB.End] != det.PhraseB.Text {
			t.Errorf("%s: detection %+v does not point into its units", c.ID, det)
		}
		if d.Conflict.DetectedBy != model.DetectedLogical && d.Conflict.DetectedBy != model.DetectedSemantic {
			t.Errorf("%s detected by %s", c.ID, d.Conflict.DetectedBy)
		}
	}
	if seen[model.SignalQuantity] != 1 || seen[model.SignalOpposites] != 1 || seen[model.SignalTemporal] != 1 {
		t.Errorf("detected conflicts by signal: %v; want one quantity, one opposites, one temporal", seen)
	}
}
