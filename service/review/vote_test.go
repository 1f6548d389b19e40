package review_test

import (
	"context"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

func policyWith(quorum int, tie model.TieRule) model.Policy {
	p := rt.Policy()
	p.Quorum, p.Tie = quorum, tie
	return p
}

func wantTally(t *testing.T, got model.Tally, forA, forB, quorum int) {
	t.Helper()
	if got != (model.Tally{ForA: forA, ForB: forB, Quorum: quorum}) {
		t.Fatalf("tally %+v, want %d–%d at quorum %d", got, forA, forB, quorum)
	}
}

func wantConflict(t *testing.T, f *rt.Field, id string, status model.ConflictStatus, version int64) model.ConflictDetail {
	t.Helper()
	d := f.Detail(t, id)
	if d.Conflict.Status != status || d.Conflict.Version != version {
		t.Fatalf("conflict %s is %s at version %d, want %s at version %d", id, d.Conflict.Status, d.Conflict.Version, status, version)
	}
	return d
}

func TestVoteOpensPendingVote(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	epoch := f.Clock(t) + 1

	resp := merge(t, f, senior1, req(p.Conflict, model.Vote, "", "the leads know this area"))

	if resp.Status != model.StatusPendingVote || resp.Conflict.Resolution != nil {
		t.Fatalf("response %+v, want pending_vote without a resolution", resp)
	}
	d := wantConflict(t, f, p.Conflict, model.StatusPendingVote, 2)
	if v := d.Conflict.VoteOpened; v == nil || v.By != senior1 || v.Reason != "the leads know this area" || v.Epoch != epoch {
		t.Fatalf("vote_opened %+v, want by %s at epoch %d with the rationale", d.Conflict.VoteOpened, senior1, epoch)
	}
	wantTally(t, d.Tally, 0, 0, 3)
	wantUnitStatus(t, f, p.A, model.UnitContested)
	wantUnitStatus(t, f, p.B, model.UnitContested)
	wantLogged(t, f, p.Conflict, epoch, "MERGE", senior1, sorted(append(authors, rt.Voters...)...))
}

func TestVoteQuorumMajorityResolves(t *testing.T) {
	f := rt.New(t, policyWith(3, model.TieEscalate))
	p := openVote(t, f)

	r1 := vote(t, f, lead1, p.Conflict, p.A)
	if r1.Status != model.StatusPendingVote || r1.Closed || r1.Changed || len(r1.SideEffects.NotifiedAgents) != 0 {
		t.Fatalf("first ballot: %+v, want an open vote and nobody told", r1)
	}
	wantTally(t, r1.Tally, 1, 0, 3)
	vote(t, f, lead2, p.Conflict, "A")
	wantConflict(t, f, p.Conflict, model.StatusPendingVote, 2) // ballots leave the version alone

	epoch := f.Clock(t) + 1
	r3 := vote(t, f, lead3, p.Conflict, "B")

	if r3.Status != model.StatusResolved || !r3.Closed {
		t.Fatalf("third ballot: status %s closed %v, want resolved and closed", r3.Status, r3.Closed)
	}
	wantTally(t, r3.Tally, 2, 1, 3)
	wantStrings(t, "superseded", r3.SideEffects.SupersededUnits, []string{p.B})
	told := sorted(append(authors, rt.Voters...)...)
	wantStrings(t, "notified", r3.SideEffects.NotifiedAgents, told)

	d := wantConflict(t, f, p.Conflict, model.StatusResolved, 3)
	r := d.Conflict.Resolution
	if r.Strategy != model.Vote || deref(r.WinnerID) != p.A || r.ResolvedBy != lead3 || r.EpochResolved != epoch {
		t.Fatalf("resolution %+v, want vote for %s closed by %s at epoch %d", r, p.A, lead3, epoch)
	}
	for _, who := range []string{lead1, lead2, lead3} {
		if !strings.Contains(r.Rationale, who) {
			t.Fatalf("rationale %q should account for %s's ballot", r.Rationale, who)
		}
	}
	if len(d.Ballots) != 3 {
		t.Fatalf("%d ballots stored, want 3", len(d.Ballots))
	}
	wantUnitStatus(t, f, p.A, model.UnitActive)
	wantUnitStatus(t, f, p.B, model.UnitSuperseded)
	rec := wantLogged(t, f, p.Conflict, epoch, "VOTE", lead3, told)
	for _, n := range rec.notes {
		// Whoever cast a ballot hears the vote closed; everyone else
		// concerned (authors, eligible voters) that it resolved.
		want := model.EventConflictResolved
		if n.AgentID == lead1 || n.AgentID == lead2 || n.AgentID == lead3 {
			want = model.EventVoteClosed
			if !strings.Contains(n.Summary, "2 for A, 1 for B of quorum 3") {
				t.Errorf("the closing notice does not give the tally: %q", n.Summary)
			}
		}
		if n.Event != want {
			t.Fatalf("%s got %s, want %s", n.AgentID, n.Event, want)
		}
	}
}

func TestVoteTieStaysOpen(t *testing.T) {
	f := rt.New(t, policyWith(2, model.TieStay))
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, p.A)
	before := f.Clock(t)

	r := vote(t, f, lead2, p.Conflict, p.B)

	if r.Status != model.StatusPendingVote || r.Closed {
		t.Fatalf("a tie under policy stay gave %s (closed %v)", r.Status, r.Closed)
	}
	wantTally(t, r.Tally, 1, 1, 2)
	wantConflict(t, f, p.Conflict, model.StatusPendingVote, 2)
	wantLogged(t, f, p.Conflict, before+1, "VOTE", lead2, nil)

	// A changed ballot breaks the tie.
	r = vote(t, f, lead1, p.Conflict, p.B)
	if !r.Changed || r.Status != model.StatusResolved {
		t.Fatalf("changed ballot: %+v, want changed and resolved", r)
	}
	wantTally(t, r.Tally, 0, 2, 2)
	d := wantConflict(t, f, p.Conflict, model.StatusResolved, 3)
	if deref(d.Conflict.Resolution.WinnerID) != p.B {
		t.Fatalf("winner %s, want %s", deref(d.Conflict.Resolution.WinnerID), p.B)
	}
	wantUnitStatus(t, f, p.A, model.UnitSuperseded)
	wantUnitStatus(t, f, p.B, model.UnitActive)
}

func TestVoteTieEscalates(t *testing.T) {
	f := rt.New(t, policyWith(2, model.TieEscalate))
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, p.A)
	epoch := f.Clock(t) + 1

	r := vote(t, f, lead2, p.Conflict, p.B)

	if r.Status != model.StatusEscalated || !r.Closed {
		t.Fatalf("a tie under policy escalate gave %s (closed %v)", r.Status, r.Closed)
	}
	told := sorted(append(authors, rt.Voters...)...)
	wantStrings(t, "notified", r.SideEffects.NotifiedAgents, told)
	d := wantConflict(t, f, p.Conflict, model.StatusEscalated, 3)
	if e := d.Conflict.Escalation; e == nil || e.By != lead2 || !strings.Contains(e.Reason, "tied 1–1") || e.Epoch != epoch {
		t.Fatalf("escalation %+v, want by %s explaining the tie at epoch %d", d.Conflict.Escalation, lead2, epoch)
	}
	wantUnitStatus(t, f, p.A, model.UnitContested)
	wantUnitStatus(t, f, p.B, model.UnitContested)
	wantLogged(t, f, p.Conflict, epoch, "VOTE", lead2, told)

	_, err := f.Svc.Vote(context.Background(), lead3, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "late"})
	rt.WantError(t, err, model.CodeInvalidTransition, "VOTE", true)
	resp := merge(t, f, operator, req(p.Conflict, model.Authority, p.A, "the operator breaks the tie"))
	if resp.Status != model.StatusResolved {
		t.Fatalf("operator's decision gave %s", resp.Status)
	}
}

func TestChangedVoteCountsOnce(t *testing.T) {
	f := rt.New(t, policyWith(3, model.TieEscalate))
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, p.A)

	r := vote(t, f, lead1, p.Conflict, p.B)

	if !r.Changed || r.Status != model.StatusPendingVote {
		t.Fatalf("changed ballot: %+v, want changed and still open", r)
	}
	wantTally(t, r.Tally, 0, 1, 3)
	d := f.Detail(t, p.Conflict)
	if len(d.Ballots) != 1 || d.Ballots[0].VoterID != lead1 || d.Ballots[0].Choice != p.B ||
		d.Ballots[0].Rationale != lead1+" thinks "+p.B+" holds" {
		t.Fatalf("ballots %+v, want lead-1's one ballot for %s with its new rationale", d.Ballots, p.B)
	}
	// Had the change counted twice, this second voter would reach quorum.
	r = vote(t, f, lead2, p.Conflict, p.B)
	if r.Status != model.StatusPendingVote {
		t.Fatalf("two voters closed a vote of quorum 3: %+v", r)
	}
	wantTally(t, r.Tally, 0, 2, 3)
}

func TestVoteAfterCloseRefused(t *testing.T) {
	f := rt.New(t, policyWith(2, model.TieEscalate))
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, p.A)
	vote(t, f, lead2, p.Conflict, p.A)
	wantConflict(t, f, p.Conflict, model.StatusResolved, 3)
	before := rt.Snap(t, f.Path)

	for _, voter := range []string{lead1, lead3} {
		_, err := f.Svc.Vote(context.Background(), voter, model.VoteRequest{ConflictID: p.Conflict, Choice: p.B, Rationale: "too late"})
		pe := rt.WantError(t, err, model.CodeInvalidTransition, "VOTE", true)
		if !strings.Contains(pe.Message, "resolved") {
			t.Fatalf("message %q should say the conflict is resolved", pe.Message)
		}
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("refused ballots wrote:\n%s", diff)
	}
}

func TestVoteOnConflictNotPutToVoteRefused(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	_, err := f.Svc.Vote(context.Background(), lead1, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "eager"})
	rt.WantError(t, err, model.CodeInvalidTransition, "VOTE", true)
}

func TestIneligibleVoterRefused(t *testing.T) {
	pol := rt.Policy()
	pol.VoterRoles = []string{"lead"}
	f := rt.New(t, pol)
	p := openVote(t, f)
	before := rt.Snap(t, f.Path)
	for _, voter := range []string{standard, observer, senior1} {
		_, err := f.Svc.Vote(context.Background(), voter, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "me too"})
		pe := rt.WantError(t, err, model.CodeNotPermitted, "VOTE", false)
		if !strings.Contains(pe.Message, "lead") {
			t.Fatalf("message %q should name the voting roles", pe.Message)
		}
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("refused ballots wrote:\n%s", diff)
	}
	vote(t, f, lead1, p.Conflict, "a") // A or B in any case
}

func TestVoteRejectsMalformedBallots(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := openVote(t, f)
	for _, tc := range []struct {
		voter, conflict, choice, rationale string
		code                               model.Code
		recoverable                        bool
	}{
		{lead1, p.Conflict, "A", " ", model.CodeInvalidRequest, true},
		{lead1, p.Conflict, "mem-999", "that one", model.CodeInvalidRequest, true},
		{lead1, "conflict-999", "A", "that one", model.CodeConflictNotFound, false},
		{"ghost", p.Conflict, "A", "boo", model.CodeAgentNotRegistered, true},
	} {
		_, err := f.Svc.Vote(context.Background(), tc.voter, model.VoteRequest{ConflictID: tc.conflict, Choice: tc.choice, Rationale: tc.rationale})
		rt.WantError(t, err, tc.code, "VOTE", tc.recoverable)
	}
	wantTally(t, f.Detail(t, p.Conflict).Tally, 0, 0, 3)
}

func TestVoteStaleVersionWritesNothing(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, "A")
	// Ballots do not change the version: a voter who read it before lead-1
	// voted is not stale.
	r, err := f.Svc.Vote(context.Background(), lead2, model.VoteRequest{ConflictID: p.Conflict, Choice: "B", Rationale: "no", ExpectedVersion: 2})
	if err != nil || r.Tally.Total() != 2 {
		t.Fatalf("vote at version 2: %+v, %v", r, err)
	}
	before := rt.Snap(t, f.Path)
	_, err = f.Svc.Vote(context.Background(), lead3, model.VoteRequest{ConflictID: p.Conflict, Choice: "B", Rationale: "no", ExpectedVersion: 1})
	rt.WantError(t, err, model.CodeInvalidTransition, "VOTE", true)
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Fatalf("a stale ballot wrote:\n%s", diff)
	}
}

func TestReopenedVoteStartsWithNoBallots(t *testing.T) {
	f := rt.New(t, policyWith(2, model.TieEscalate))
	p := openVote(t, f)
	vote(t, f, lead1, p.Conflict, "A")
	vote(t, f, lead2, p.Conflict, "B") // tie: escalated

	resp := merge(t, f, operator, req(p.Conflict, model.Vote, "", "once more, with the whole team"))

	if resp.Status != model.StatusPendingVote {
		t.Fatalf("operator reopening the vote gave %s", resp.Status)
	}
	d := wantConflict(t, f, p.Conflict, model.StatusPendingVote, 4)
	if len(d.Ballots) != 0 {
		t.Fatalf("the new vote starts with the old ballots: %+v", d.Ballots)
	}
	wantTally(t, d.Tally, 0, 0, 2)
}

func TestCastingTheSameBallotAgainWritesNothing(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := openVote(t, f)
	vote(t, f, rt.Lead1, p.Conflict, "A")
	before := rt.Snap(t, f.Path)
	resp, err := f.Svc.Vote(context.Background(), rt.Lead1, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "  " + rt.Lead1 + " thinks A holds "})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Unchanged || resp.Changed || resp.Tally.ForA != 1 || resp.Status != model.StatusPendingVote {
		t.Errorf("response %+v: want unchanged, one ballot for A", resp)
	}
	if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
		t.Errorf("the same ballot again changed the field:\n%s", diff)
	}
	resp, err = f.Svc.Vote(context.Background(), rt.Lead1, model.VoteRequest{ConflictID: p.Conflict, Choice: "A", Rationale: "a better reason"})
	if err != nil || resp.Unchanged || !resp.Changed {
		t.Errorf("a new rationale: %+v, %v; want a changed ballot", resp, err)
	}
}
