package review_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

// resolved checks a conflict resolved by a decision at epoch: the stored
// conflict, the units, the log and the outbox, and that the response says
// the same as the store.
type resolved struct {
	strategy   model.Strategy
	winner     string // "" for none
	by         string
	superseded []string
	active     []string
	notified   []string
}

func wantResolved(t *testing.T, f *rt.Field, p rt.Pair, resp model.MergeResponse, epoch int64, w resolved) model.ConflictDetail {
	t.Helper()
	if resp.Status != model.StatusResolved {
		t.Fatalf("response status %s, want resolved", resp.Status)
	}
	wantStrings(t, "side_effects.superseded_units", resp.SideEffects.SupersededUnits, w.superseded)
	wantStrings(t, "side_effects.notified_agents", resp.SideEffects.NotifiedAgents, w.notified)

	d := f.Detail(t, p.Conflict)
	c := d.Conflict
	if c.Status != model.StatusResolved || c.Resolution == nil {
		t.Fatalf("stored conflict %s is %s with resolution %+v, want resolved", c.ID, c.Status, c.Resolution)
	}
	r := c.Resolution
	if r.Strategy != w.strategy || r.ResolvedBy != w.by || r.EpochResolved != epoch || r.Rationale == "" {
		t.Fatalf("stored resolution %+v, want strategy %s by %s at epoch %d with a rationale", r, w.strategy, w.by, epoch)
	}
	if got := deref(r.WinnerID); got != w.winner {
		t.Fatalf("stored winner %q, want %q", got, w.winner)
	}
	if resp.Conflict.Version != c.Version || resp.Conflict.Status != c.Status || deref(resp.Conflict.Resolution.WinnerID) != w.winner {
		t.Fatalf("response conflict %+v differs from the stored one %+v", resp.Conflict, c)
	}
	for _, id := range w.superseded {
		wantUnitStatus(t, f, id, model.UnitSuperseded)
	}
	for _, id := range w.active {
		wantUnitStatus(t, f, id, model.UnitActive)
	}
	if got := f.Clock(t); got != epoch {
		t.Fatalf("clock at %d after the decision, want %d", got, epoch)
	}
	wantLogged(t, f, p.Conflict, epoch, "MERGE", w.by, w.notified)
	return d
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestMergeLastWriteWinsSupersedesOlder(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Epoch: 20, Score: 0.9}, rt.Side{Epoch: 40, Score: 0.1})
	if a, b := f.Unit(t, p.A).Epoch, f.Unit(t, p.B).Epoch; a != 20 || b != 40 {
		t.Fatalf("units at epochs %d and %d, want 20 and 40", a, b)
	}
	epoch := f.Clock(t) + 1

	resp := merge(t, f, senior1, req(p.Conflict, model.LastWriteWins, "", "the later report stands"))

	d := wantResolved(t, f, p, resp, epoch, resolved{strategy: model.LastWriteWins, winner: p.B, by: senior1,
		superseded: []string{p.A}, active: []string{p.B}, notified: authors})
	if d.Conflict.Version != 2 {
		t.Fatalf("version %d after one decision, want 2", d.Conflict.Version)
	}
}

func TestMergeConfidenceWeightedSupersedesLoser(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.82}, rt.Side{Score: 0.75})
	wantUnitStatus(t, f, p.A, model.UnitContested)
	epoch := f.Clock(t) + 1

	resp := merge(t, f, senior1, req(p.Conflict, model.ConfidenceWeighted, p.A, "0.82 from three reports against 0.75"))

	wantResolved(t, f, p, resp, epoch, resolved{strategy: model.ConfidenceWeighted, winner: p.A, by: senior1,
		superseded: []string{p.B}, active: []string{p.A}, notified: authors})
}

func TestMergeEvidenceCountSupersedesLoser(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9, Supporters: 1}, rt.Side{Score: 0.2, Supporters: 3})
	epoch := f.Clock(t) + 1

	resp := merge(t, f, senior1, req(p.Conflict, model.EvidenceCount, p.B, "three observations against one"))

	wantResolved(t, f, p, resp, epoch, resolved{strategy: model.EvidenceCount, winner: p.B, by: senior1,
		superseded: []string{p.A}, active: []string{p.B}, notified: authors})
	// Supporters lend weight but are not parties: their author (scout) is not told.
	for _, id := range append(p.SupportersA, p.SupportersB...) {
		wantUnitStatus(t, f, id, model.UnitActive)
	}
}

func TestEvidenceCountIgnoresSupersededAndRetractedSupporters(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Supporters: 3}, rt.Side{Supporters: 2})
	// Two of A's three supporters no longer stand.
	setStatus(t, f, p.SupportersA[0], model.UnitSuperseded)
	setStatus(t, f, p.SupportersA[1], model.UnitRetracted)

	d := f.Detail(t, p.Conflict)
	wantStrings(t, "A's supporters", d.A.Supporters, p.SupportersA[2:])
	wantStrings(t, "B's supporters", d.B.Supporters, p.SupportersB)

	_, err := f.Svc.Merge(context.Background(), senior1, req(p.Conflict, model.EvidenceCount, p.A, "A had more"))
	pe := rt.WantError(t, err, model.CodeMergeFailed, "MERGE", true)
	if !strings.Contains(pe.Message, "picks "+p.B) {
		t.Fatalf("message %q does not name the rule's pick %s", pe.Message, p.B)
	}
	merge(t, f, senior1, req(p.Conflict, model.EvidenceCount, p.B, "B has more live support"))
	wantUnitStatus(t, f, p.A, model.UnitSuperseded)
}

func TestMergeRefusesWinnerTheRuleDoesNotPick(t *testing.T) {
	for _, tc := range []struct {
		strategy model.Strategy
		a, b     rt.Side
		pick     string // "A" or "B": what the rule picks
	}{
		{model.LastWriteWins, rt.Side{}, rt.Side{}, "B"},
		{model.ConfidenceWeighted, rt.Side{Score: 0.9}, rt.Side{Score: 0.6}, "A"},
		{model.EvidenceCount, rt.Side{Supporters: 0}, rt.Side{Supporters: 2}, "B"},
	} {
		t.Run(string(tc.strategy), func(t *testing.T) {
			f := rt.New(t, rt.Policy())
			p := f.Contradict(t, model.ConflictFactual, tc.a, tc.b)
			pick, other := p.A, p.B
			if tc.pick == "B" {
				pick, other = p.B, p.A
			}
			before := rt.Snap(t, f.Path)

			_, err := f.Svc.Merge(context.Background(), senior1, req(p.Conflict, tc.strategy, other, "I prefer it"))

			pe := rt.WantError(t, err, model.CodeMergeFailed, "MERGE", true)
			if !strings.Contains(pe.Message, "picks "+pick) || !strings.Contains(pe.SuggestedAction, pick) {
				t.Fatalf("error %q does not name the rule's pick %s", pe, pick)
			}
			if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
				t.Fatalf("a refused merge wrote:\n%s", diff)
			}
		})
	}
}

func TestMergeRefusesTie(t *testing.T) {
	t.Run("confidence_weighted", func(t *testing.T) {
		f := rt.New(t, rt.Policy())
		p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.7}, rt.Side{Score: 0.7})
		wantTie(t, f, req(p.Conflict, model.ConfidenceWeighted, p.A, "A"))
	})
	t.Run("evidence_count", func(t *testing.T) {
		f := rt.New(t, rt.Policy())
		p := f.Contradict(t, model.ConflictFactual, rt.Side{Supporters: 1}, rt.Side{Supporters: 1})
		wantTie(t, f, req(p.Conflict, model.EvidenceCount, p.B, "B"))
	})
	t.Run("last_write_wins on imported units of one epoch", func(t *testing.T) {
		f := rt.New(t, rt.Policy())
		c := importPair(t, f, "ext-7f3a", 50, "ext-9b1c", 50)
		wantTie(t, f, req(c, model.LastWriteWins, "", "the latest"))
	})
}

func wantTie(t *testing.T, f *rt.Field, r model.MergeRequest) {
	t.Helper()
	before := rt.Snap(t, f.Path)
	_, err := f.Svc.Merge(context.Background(), senior1, r)
	pe := rt.WantError(t, err, model.CodeMergeFailed, "MERGE", true)
	if !strings.Contains(pe.Message, "tie") || pe.SuggestedAction == "" {
		t.Fatalf("error %q should explain the tie and suggest another strategy", pe)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("a refused merge wrote:\n%s", diff)
	}
}

func TestMergeAuthorityOnlyDesignatedRole(t *testing.T) {
	f := rt.New(t, rt.Policy()) // role "lead" decides factual conflicts
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})

	// A senior agent of another role has the authority level but not the role.
	before := rt.Snap(t, f.Path)
	_, err := f.Svc.Merge(context.Background(), senior1, req(p.Conflict, model.Authority, p.A, "I say so"))
	pe := rt.WantError(t, err, model.CodeNotPermitted, "MERGE", false)
	if !strings.Contains(pe.Message, `"lead"`) {
		t.Fatalf("message %q should name the designated role", pe.Message)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("a refused merge wrote:\n%s", diff)
	}

	epoch := f.Clock(t) + 1
	resp := merge(t, f, lead1, req(p.Conflict, model.Authority, p.A, "the lead's call"))
	wantResolved(t, f, p, resp, epoch, resolved{strategy: model.Authority, winner: p.A, by: lead1,
		superseded: []string{p.B}, active: []string{p.A}, notified: authors})

	// No role is designated for strategic conflicts: only a human operator.
	q := f.Contradict(t, model.ConflictStrategic, rt.Side{}, rt.Side{})
	_, err = f.Svc.Merge(context.Background(), lead1, req(q.Conflict, model.Authority, q.A, "the lead's call"))
	rt.WantError(t, err, model.CodeNotPermitted, "MERGE", false)
	epoch = f.Clock(t) + 1
	resp = merge(t, f, operator, req(q.Conflict, model.Authority, q.B, "the operator's call"))
	wantResolved(t, f, q, resp, epoch, resolved{strategy: model.Authority, winner: q.B, by: operator,
		superseded: []string{q.A}, active: []string{q.B}, notified: authors})
}

func TestMergeSynthesisSupersedesBothOriginals(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictInterpretive, rt.Side{Score: 0.8}, rt.Side{Score: 0.6})
	epoch := f.Clock(t) + 1
	text := "Both hold: the cache is warm at boot, cold after a deploy."

	resp := merge(t, f, senior1, synthesisReq(p.Conflict, text, "each side saw half of it"))

	if resp.SideEffects.NewUnitID == nil {
		t.Fatal("no new_unit_id in the response")
	}
	id := *resp.SideEffects.NewUnitID
	d := wantResolved(t, f, p, resp, epoch, resolved{strategy: model.Synthesis, by: senior1,
		superseded: []string{p.A, p.B}, notified: authors})
	if got := deref(d.Conflict.Resolution.SynthesisUnitID); got != id {
		t.Fatalf("resolution names synthesis unit %q, want %q", got, id)
	}

	u := f.Unit(t, id)
	switch {
	case u.Type != model.TypeSynthesis, u.Mode != model.ModeCommitted, u.Status != model.UnitActive:
		t.Fatalf("new unit is %s/%s/%s, want synthesis/committed/active", u.Type, u.Mode, u.Status)
	case u.Content != text:
		t.Fatalf("new unit says %q, want %q", u.Content, text)
	case u.Source.AgentID != senior1 || u.Source.AgentRole != "senior":
		t.Fatalf("new unit recorded by %s (%s), want %s (senior)", u.Source.AgentID, u.Source.AgentRole, senior1)
	case u.Epoch != epoch:
		t.Fatalf("new unit at epoch %d, want %d", u.Epoch, epoch)
	case u.Intent.Purpose == "" || u.Confidence.Score == nil || u.Confidence.Reasoning == "":
		t.Fatalf("new unit lacks intent or confidence: %+v", u)
	}
	var elaborates []string
	for _, r := range u.Relations {
		if r.Type != model.RelElaborates {
			t.Fatalf("new unit carries a %s relation", r.Type)
		}
		elaborates = append(elaborates, r.TargetID)
	}
	wantStrings(t, "elaborates targets", sorted(elaborates...), sorted(p.A, p.B))

	ev := recordedAt(t, f, p.Conflict, epoch).events[0]
	if deref(ev.UnitID) != id {
		t.Fatalf("MERGE event names unit %q, want the synthesis %s", deref(ev.UnitID), id)
	}
}

func TestHumanEscalationRecordsWhoAndWhy(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictStrategic, rt.Side{}, rt.Side{})
	epoch := f.Clock(t) + 1

	// A standard agent may not decide at level 3, but may ask for a human.
	resp := merge(t, f, standard, req(p.Conflict, model.HumanEscalation, "", "needs a product call"))

	if resp.Status != model.StatusEscalated {
		t.Fatalf("status %s, want escalated", resp.Status)
	}
	wantStrings(t, "notified", resp.SideEffects.NotifiedAgents, sorted(append(authors, operator)...))
	wantStrings(t, "superseded", resp.SideEffects.SupersededUnits, nil)
	c := f.Detail(t, p.Conflict).Conflict
	if c.Status != model.StatusEscalated || c.Version != 2 || c.Resolution != nil {
		t.Fatalf("stored conflict %+v, want escalated at version 2 without a resolution", c)
	}
	if e := c.Escalation; e == nil || e.By != standard || e.Reason != "needs a product call" || e.Epoch != epoch || e.At.IsZero() {
		t.Fatalf("escalation %+v, want by %s for %q at epoch %d", c.Escalation, standard, "needs a product call", epoch)
	}
	wantUnitStatus(t, f, p.A, model.UnitContested)
	wantUnitStatus(t, f, p.B, model.UnitContested)
	r := wantLogged(t, f, p.Conflict, epoch, "MERGE", standard, sorted(append(authors, operator)...))
	for _, n := range r.notes {
		if !n.RequiresAction || n.Event != model.EventConflictEscalated {
			t.Fatalf("notification %+v should be %s and require action", n, model.EventConflictEscalated)
		}
	}
}

func TestStandardAgentMayNotDecideAtLevel3(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.1})
	_, err := f.Svc.Merge(context.Background(), standard, req(p.Conflict, model.ConfidenceWeighted, p.A, "clear"))
	pe := rt.WantError(t, err, model.CodeNotPermitted, "MERGE", false)
	if !strings.Contains(pe.Message, "6") || !strings.Contains(pe.SuggestedAction, "human_escalation") {
		t.Fatalf("error %q should name authority 6 and suggest escalating", pe)
	}
	_, err = f.Svc.Merge(context.Background(), observer, req(p.Conflict, model.HumanEscalation, "", "help"))
	rt.WantError(t, err, model.CodeNotPermitted, "MERGE", false)
}

func TestEscalatedOnlyHumanOperatorDecides(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.4})
	merge(t, f, senior1, req(p.Conflict, model.HumanEscalation, "", "above my pay grade"))
	before := rt.Snap(t, f.Path)

	for _, tc := range []struct {
		caller string
		r      model.MergeRequest
		code   model.Code
	}{
		{senior2, req(p.Conflict, model.ConfidenceWeighted, p.A, "clear enough"), model.CodeNotPermitted},
		{lead1, req(p.Conflict, model.Authority, p.A, "the lead's call"), model.CodeNotPermitted},
		{senior1, req(p.Conflict, model.Dismiss, "", "never mind"), model.CodeNotPermitted},
		{operator, req(p.Conflict, model.HumanEscalation, "", "again"), model.CodeInvalidTransition},
	} {
		_, err := f.Svc.Merge(context.Background(), tc.caller, tc.r)
		rt.WantError(t, err, tc.code, "MERGE", tc.code == model.CodeInvalidTransition)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("refused decisions wrote:\n%s", diff)
	}

	epoch := f.Clock(t) + 1
	resp := merge(t, f, operator, req(p.Conflict, model.ConfidenceWeighted, p.A, "A is better sourced"))
	d := wantResolved(t, f, p, resp, epoch, resolved{strategy: model.ConfidenceWeighted, winner: p.A, by: operator,
		superseded: []string{p.B}, active: []string{p.A}, notified: sorted(append(authors, operator, senior1)...)})
	if d.Conflict.Version != 3 || d.Conflict.Escalation == nil || d.Conflict.Escalation.By != senior1 {
		t.Fatalf("conflict %+v should be at version 3 and keep who escalated it", d.Conflict)
	}
}

func TestPendingVoteRefusesMerge(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := openVote(t, f)
	before := rt.Snap(t, f.Path)
	for _, caller := range []string{senior2, lead1, operator} {
		for _, r := range []model.MergeRequest{
			req(p.Conflict, model.LastWriteWins, "", "newest"),
			req(p.Conflict, model.Authority, p.A, "mine"),
			req(p.Conflict, model.Dismiss, "", "nothing"),
			req(p.Conflict, model.Vote, "", "again"),
		} {
			_, err := f.Svc.Merge(context.Background(), caller, r)
			pe := rt.WantError(t, err, model.CodeInvalidTransition, "MERGE", true)
			if !strings.Contains(pe.SuggestedAction, "vote") {
				t.Fatalf("error %q should point to voting", pe)
			}
		}
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("refused decisions wrote:\n%s", diff)
	}
}

func TestResolvedConflictRefusesMerge(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	merge(t, f, senior1, req(p.Conflict, model.LastWriteWins, "", "newest"))
	before := rt.Snap(t, f.Path)
	for _, caller := range []string{senior2, operator} {
		_, err := f.Svc.Merge(context.Background(), caller, req(p.Conflict, model.Dismiss, "", "undo"))
		rt.WantError(t, err, model.CodeInvalidTransition, "MERGE", true)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("refused decisions wrote:\n%s", diff)
	}
}

func TestDismissKeepsBothActive(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictInterpretive, rt.Side{}, rt.Side{})
	wantUnitStatus(t, f, p.A, model.UnitContested)
	wantUnitStatus(t, f, p.B, model.UnitContested)
	epoch := f.Clock(t) + 1

	resp := merge(t, f, senior1, req(p.Conflict, model.Dismiss, "", "they talk about different regions"))

	wantResolved(t, f, p, resp, epoch, resolved{strategy: model.Dismiss, by: senior1,
		superseded: nil, active: []string{p.A, p.B}, notified: authors})
}

func TestUnitStaysContestedWhileAnotherConflictIsOpen(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.5}, rt.Side{Score: 0.4})
	score := 0.9
	res, err := f.Svc.Record(context.Background(), lead2, model.RecordRequest{Type: model.TypeFinding,
		Content: "A is wrong for another reason.", Intent: model.Intent{Purpose: "object"},
		Confidence: model.Confidence{Score: &score, Reasoning: "measured"},
		Relations:  []model.Relation{{Type: model.RelContradicts, TargetID: p.A}}})
	if err != nil {
		t.Fatal(err)
	}
	second := res.Conflicts[0].ID

	merge(t, f, senior1, req(p.Conflict, model.Dismiss, "", "not a real conflict"))
	wantUnitStatus(t, f, p.B, model.UnitActive)
	wantUnitStatus(t, f, p.A, model.UnitContested) // the second conflict is still open

	merge(t, f, senior1, req(second, model.ConfidenceWeighted, res.UnitID, "0.9 against 0.5"))
	wantUnitStatus(t, f, p.A, model.UnitSuperseded)
	wantUnitStatus(t, f, res.UnitID, model.UnitActive)
}

func TestMergeStaleVersionWritesNothing(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.3})
	// A reviewer reads the conflict, someone else escalates it meanwhile,
	// and the reviewer's decision, taken on what they saw, is refused.
	seen := f.Detail(t, p.Conflict).Conflict.Version
	merge(t, f, senior2, req(p.Conflict, model.HumanEscalation, "", "unsure"))
	before := rt.Snap(t, f.Path)
	clock := f.Clock(t)

	r := req(p.Conflict, model.ConfidenceWeighted, p.A, "0.9 against 0.3")
	r.ExpectedVersion = seen
	_, err := f.Svc.Merge(context.Background(), operator, r)

	pe := rt.WantError(t, err, model.CodeInvalidTransition, "MERGE", true)
	if !strings.Contains(pe.Message, "escalated by "+senior2) {
		t.Fatalf("message %q should say what happened meanwhile", pe.Message)
	}
	after := rt.Snap(t, f.Path)
	if diff := before.Diff(after); diff != "" {
		t.Fatalf("a stale decision wrote:\n%s", diff)
	}
	for _, table := range []string{"units", "conflicts", "relations", "votes", "notifications", "events", "agents"} {
		if before.Count(table) != after.Count(table) {
			t.Fatalf("%s: %d rows before, %d after", table, before.Count(table), after.Count(table))
		}
	}
	if got := f.Clock(t); got != clock {
		t.Fatalf("the clock moved from %d to %d", clock, got)
	}

	// With the version it now has, the same decision goes through.
	r.ExpectedVersion = seen + 1
	merge(t, f, operator, r)
}

func TestMergeFailingHalfWayWritesNothing(t *testing.T) {
	// The last writes of a decision are the notifications and the event; a
	// failure there must take the conflict, unit and clock changes with it.
	for _, table := range []string{"notifications", "events", "units"} {
		t.Run(table, func(t *testing.T) {
			f := rt.New(t, rt.Policy())
			p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.3})
			failInserts(t, f, table)
			before := rt.Snap(t, f.Path)

			_, err := f.Svc.Merge(context.Background(), senior1, synthesisReq(p.Conflict, "both", "reconcile"))

			if err == nil || !strings.Contains(err.Error(), "injected failure") {
				t.Fatalf("got %v, want the injected failure", err)
			}
			if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
				t.Fatalf("a failed decision left:\n%s", diff)
			}
		})
	}
}

func TestUnsupportedStrategyAtLevel2(t *testing.T) {
	p2 := rt.Policy()
	p2.Level = 2
	f := rt.New(t, p2)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9, Supporters: 2}, rt.Side{Score: 0.3})
	before := rt.Snap(t, f.Path)
	for _, r := range []model.MergeRequest{
		req(p.Conflict, model.Authority, p.A, "the lead says"),
		req(p.Conflict, model.EvidenceCount, p.A, "two supporters"),
		synthesisReq(p.Conflict, "both", "reconcile"),
		req(p.Conflict, model.Vote, "", "ask around"),
	} {
		_, err := f.Svc.Merge(context.Background(), operator, r)
		pe := rt.WantError(t, err, model.CodeUnsupportedOperation, "MERGE", false)
		if !strings.Contains(pe.Message, "level 2") {
			t.Fatalf("%s: message %q should name the field's level", r.Strategy, pe.Message)
		}
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("refused decisions wrote:\n%s", diff)
	}

	// The level-2 strategies work, and without the level-3 hierarchy a
	// standard agent may decide.
	epoch := f.Clock(t) + 1
	resp := merge(t, f, standard, req(p.Conflict, model.ConfidenceWeighted, p.A, "0.9 against 0.3"))
	wantResolved(t, f, p, resp, epoch, resolved{strategy: model.ConfidenceWeighted, winner: p.A, by: standard,
		superseded: []string{p.B}, active: []string{p.A}, notified: authors})
	q := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	merge(t, f, standard, req(q.Conflict, model.Dismiss, "", "not a conflict"))
}

func TestLevel1OffersNoMerge(t *testing.T) {
	p1 := rt.Policy()
	p1.Level = 1
	f := rt.New(t, p1)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if c := f.Detail(t, p.Conflict).Conflict; c.Status != model.StatusDetected || c.DetectedBy != model.DetectedExplicit {
		t.Fatalf("level 1 still records conflicts; got %+v", c)
	}
	for _, s := range model.Strategies {
		r := req(p.Conflict, s, "", "try")
		switch {
		case s.NeedsWinner():
			r.Resolution.WinnerID = &p.A
		case s == model.Synthesis:
			r = synthesisReq(p.Conflict, "both", "try")
		}
		_, err := f.Svc.Merge(context.Background(), operator, r)
		rt.WantError(t, err, model.CodeUnsupportedOperation, "MERGE", false)
	}
}

func TestMergeConflictNotFound(t *testing.T) {
	f := rt.New(t, rt.Policy())
	before := rt.Snap(t, f.Path)
	_, err := f.Svc.Merge(context.Background(), senior1, req("conflict-404", model.Dismiss, "", "gone"))
	pe := rt.WantError(t, err, model.CodeConflictNotFound, "MERGE", false)
	if !strings.Contains(pe.Message, "conflict-404") {
		t.Fatalf("message %q should name the conflict", pe.Message)
	}
	_, err = f.Svc.Detail(context.Background(), "conflict-404")
	rt.WantError(t, err, model.CodeConflictNotFound, "DETECT", false)
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("a refused merge wrote:\n%s", diff)
	}
}

func TestMergeAgentNotRegistered(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	before := rt.Snap(t, f.Path)
	for _, caller := range []string{"ghost", ""} {
		_, err := f.Svc.Merge(context.Background(), caller, req(p.Conflict, model.Dismiss, "", "who am I"))
		rt.WantError(t, err, model.CodeAgentNotRegistered, "MERGE", true)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("a refused merge wrote:\n%s", diff)
	}
}

func TestMergeRejectsMalformedRequests(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.9}, rt.Side{Score: 0.2})
	text := "both"
	for name, r := range map[string]model.MergeRequest{
		"no rationale":            req(p.Conflict, model.LastWriteWins, "", "  \n"),
		"unknown strategy":        req(p.Conflict, "coin_flip", "", "luck"),
		"no winner where needed":  req(p.Conflict, model.ConfidenceWeighted, "", "obvious"),
		"winner outside the pair": req(p.Conflict, model.ConfidenceWeighted, p.A+"0", "typo"),
		"winner for dismiss":      req(p.Conflict, model.Dismiss, p.A, "both"),
		"synthesis without text":  req(p.Conflict, model.Synthesis, "", "reconcile"),
		"synthesis text for lww":  {ConflictID: p.Conflict, Strategy: model.LastWriteWins, Resolution: model.MergeResolution{Synthesis: &text, Rationale: "x"}},
		"winner for vote":         req(p.Conflict, model.Vote, p.A, "ask"),
	} {
		t.Run(name, func(t *testing.T) {
			before := rt.Snap(t, f.Path)
			_, err := f.Svc.Merge(context.Background(), senior1, r)
			rt.WantError(t, err, model.CodeInvalidRequest, "MERGE", true)
			if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
				t.Fatalf("a refused merge wrote:\n%s", diff)
			}
		})
	}
}

// TestNotificationsAndEventsPerDecision pins, for every strategy, who is
// told and what is logged: one event, one notification per agent, in the
// same write as the decision.
func TestNotificationsAndEventsPerDecision(t *testing.T) {
	withOperator := sorted(append(authors, operator, senior1)...)
	withVoters := sorted(append(authors, rt.Voters...)...)
	for _, tc := range []struct {
		name     string
		caller   string
		request  func(p rt.Pair) model.MergeRequest
		status   model.ConflictStatus
		event    string
		notified []string
	}{
		{"last_write_wins", senior1, func(p rt.Pair) model.MergeRequest { return req(p.Conflict, model.LastWriteWins, "", "newest") },
			model.StatusResolved, model.EventConflictResolved, authors},
		{"confidence_weighted", senior1, func(p rt.Pair) model.MergeRequest {
			return req(p.Conflict, model.ConfidenceWeighted, p.A, "surer")
		}, model.StatusResolved, model.EventConflictResolved, authors},
		{"evidence_count", senior1, func(p rt.Pair) model.MergeRequest { return req(p.Conflict, model.EvidenceCount, p.A, "more") },
			model.StatusResolved, model.EventConflictResolved, authors},
		{"authority", lead1, func(p rt.Pair) model.MergeRequest { return req(p.Conflict, model.Authority, p.B, "lead") },
			model.StatusResolved, model.EventConflictResolved, authors},
		{"synthesis", senior1, func(p rt.Pair) model.MergeRequest { return synthesisReq(p.Conflict, "both", "merge") },
			model.StatusResolved, model.EventConflictResolved, authors},
		{"dismiss", senior1, func(p rt.Pair) model.MergeRequest { return req(p.Conflict, model.Dismiss, "", "no conflict") },
			model.StatusResolved, model.EventConflictResolved, authors},
		{"human_escalation", senior1, func(p rt.Pair) model.MergeRequest {
			return req(p.Conflict, model.HumanEscalation, "", "ask")
		}, model.StatusEscalated, model.EventConflictEscalated, withOperator},
		{"vote", senior1, func(p rt.Pair) model.MergeRequest { return req(p.Conflict, model.Vote, "", "ask all") },
			model.StatusPendingVote, model.EventVoteOpened, withVoters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rt.New(t, rt.Policy())
			p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.8, Supporters: 2}, rt.Side{Score: 0.3})
			before := rt.Snap(t, f.Path)
			epoch := f.Clock(t) + 1

			resp := merge(t, f, tc.caller, tc.request(p))

			if resp.Status != tc.status {
				t.Fatalf("status %s, want %s", resp.Status, tc.status)
			}
			wantStrings(t, "notified_agents", resp.SideEffects.NotifiedAgents, tc.notified)
			r := wantLogged(t, f, p.Conflict, epoch, "MERGE", tc.caller, tc.notified)
			for _, n := range r.notes {
				if n.Event != tc.event || n.ConflictID == nil || *n.ConflictID != p.Conflict || n.Summary == "" {
					t.Fatalf("notification %+v, want %s about %s", n, tc.event, p.Conflict)
				}
			}
			after := rt.Snap(t, f.Path)
			if got, want := after.Count("notifications")-before.Count("notifications"), len(tc.notified); got != want {
				t.Fatalf("%d notifications written, want %d", got, want)
			}
			if got := after.Count("events") - before.Count("events"); got != 1 {
				t.Fatalf("%d events written, want 1", got)
			}
			for _, agent := range tc.notified {
				inbox, err := f.Svc.Inbox(context.Background(), agent, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if last := inbox[len(inbox)-1]; last.Epoch != epoch || last.Event != tc.event {
					t.Fatalf("%s's latest notification is %+v, want %s at epoch %d", agent, last, tc.event, epoch)
				}
			}
		})
	}
}

// TestMergeResponseAndErrorsHaveTheSpecShape pins the JSON of MERGE's
// answer and of a protocol error (spec §6.6 and §8).
func TestMergeResponseAndErrorsHaveTheSpecShape(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.82}, rt.Side{Score: 0.75})
	resp := merge(t, f, senior1, req(p.Conflict, model.ConfidenceWeighted, p.A, "0.82 against 0.75"))

	var got map[string]any
	roundTrip(t, resp, &got)
	want := map[string]any{
		"status": "resolved",
		"side_effects": map[string]any{
			"superseded_units": []any{p.B},
			"new_unit_id":      nil,
			"notified_agents":  []any{senior2, standard},
		},
	}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Fatalf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	c := got["conflict"].(map[string]any)
	r := c["resolution"].(map[string]any)
	for k, v := range map[string]any{"id": p.Conflict, "status": "resolved", "unit_a": p.A, "unit_b": p.B} {
		if c[k] != v {
			t.Fatalf("conflict.%s = %v, want %v", k, c[k], v)
		}
	}
	for k, v := range map[string]any{"strategy": "confidence_weighted", "winner_id": p.A,
		"rationale": "0.82 against 0.75", "resolved_by": senior1, "epoch_resolved": float64(f.Clock(t))} {
		if r[k] != v {
			t.Fatalf("conflict.resolution.%s = %v, want %v", k, r[k], v)
		}
	}

	_, err := f.Svc.Merge(context.Background(), senior1, req(p.Conflict, model.Dismiss, "", "again"))
	var e map[string]any
	roundTrip(t, err, &e)
	if e["code"] != "INVALID_TRANSITION" || e["operation"] != "MERGE" || e["recoverable"] != true ||
		e["message"] == "" || e["suggested_action"] == "" {
		t.Fatalf("error JSON %v, want {code, message, operation, recoverable, suggested_action}", e)
	}
}

func roundTrip(t *testing.T, v any, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

// TestResolvingConflictIsOpenToAgents: arbiter never writes resolving
// (a decision is one transaction), but another program may.
func TestResolvingConflictIsOpenToAgents(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Score: 0.8}, rt.Side{Score: 0.3})
	err := f.Store.Write(context.Background(), func(tx store.Tx) error {
		c, err := tx.Conflict(p.Conflict)
		if err != nil {
			return err
		}
		c.Status = model.StatusResolving
		return tx.ConflictUpdate(c, c.Version)
	})
	if err != nil {
		t.Fatal(err)
	}
	epoch := f.Clock(t) + 1
	resp := merge(t, f, senior1, req(p.Conflict, model.ConfidenceWeighted, p.A, "0.8 against 0.3"))
	d := wantResolved(t, f, p, resp, epoch, resolved{strategy: model.ConfidenceWeighted, winner: p.A, by: senior1,
		superseded: []string{p.B}, active: []string{p.A}, notified: authors})
	if d.Conflict.Version != 3 {
		t.Fatalf("version %d, want 3", d.Conflict.Version)
	}
}
