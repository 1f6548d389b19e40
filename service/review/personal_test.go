package review_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

// A notice carries the whole rationale however long, and the vote's
// closing notice every ballot whole, naming the one that closed it.
func TestNoticesCarryTheWholeRationaleAndTheClosingBallot(t *testing.T) {
	f := rt.New(t, policyWith(3, model.TieEscalate))
	ctx := context.Background()
	long := func(who string) string {
		return who + " says: " + strings.Repeat("the nightly runs outweigh the one-day re-run, ", 10) + "the end of " + who + "'s reasons"
	}
	p := openVote(t, f)
	for _, b := range []struct{ voter, choice string }{{lead1, "A"}, {lead2, "B"}, {lead3, "A"}} {
		if _, err := f.Svc.Vote(ctx, b.voter, model.VoteRequest{ConflictID: p.Conflict, Choice: b.choice, Rationale: long(b.voter)}); err != nil {
			t.Fatal(err)
		}
	}
	closed := notes(t, f, p.Conflict, model.EventVoteClosed)
	if len(closed) != 3 {
		t.Fatalf("%d vote_closed notices, want one to each of the 3 voters", len(closed))
	}
	for _, n := range closed {
		wantIn(t, n, "with "+lead3+"'s ballot for "+p.A+" (A)", long(lead1), long(lead2), long(lead3))
	}

	q := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	why := strings.Repeat("A rationale of many words, ", 40) + "and its very last words."
	merge(t, f, senior1, req(q.Conflict, model.HumanEscalation, "", "escalated: "+why))
	for _, n := range notes(t, f, q.Conflict, model.EventConflictEscalated) {
		wantIn(t, n, "escalated: "+why)
	}
	merge(t, f, operator, req(q.Conflict, model.Authority, q.A, why))
	for _, n := range notes(t, f, q.Conflict, model.EventConflictResolved) {
		wantIn(t, n, "Why: "+strings.TrimSpace(why))
	}
}

// The inbox newest first with the unread count; reading up to the
// newest shown clears it, and a notice that comes after is unread again.
func TestInboxPagesNewestFirstAndReadingClearsTheUnread(t *testing.T) {
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	for range 3 {
		p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
		merge(t, f, senior1, req(p.Conflict, model.Vote, "", "let the leads decide"))
	}
	page, err := f.Svc.InboxPage(ctx, lead1, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Notices) != 2 || !page.More || page.Unread != 3 || page.Notices[0].ID < page.Notices[1].ID {
		t.Fatalf("lead-1's first page of two: %+v, want the 2 newest of 3, more after them, all 3 unread", page)
	}
	rest, err := f.Svc.InboxPage(ctx, lead1, page.Notices[1].ID, 2)
	if err != nil || len(rest.Notices) != 1 || rest.More {
		t.Fatalf("the page after: %+v (%v), want the oldest notice", rest, err)
	}
	if err := f.Svc.InboxRead(ctx, lead1, page.Notices[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := f.Svc.InboxRead(ctx, lead1, rest.Notices[0].ID); err != nil { // an older one: the mark stays
		t.Fatal(err)
	}
	if again, err := f.Svc.InboxPage(ctx, lead1, 0, 2); err != nil || again.Unread != 0 {
		t.Fatalf("after reading the newest: %d unread (%v), want 0", again.Unread, err)
	}
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	merge(t, f, senior1, req(p.Conflict, model.Vote, "", "and this one"))
	if again, err := f.Svc.InboxPage(ctx, lead1, 0, 2); err != nil || again.Unread != 1 {
		t.Fatalf("after a new notice: %+v (%v), want 1 unread", again, err)
	}
	if _, err := f.Svc.InboxPage(ctx, "nobody", 0, 2); err == nil {
		t.Fatal("the inbox of an agent who is not registered was read")
	}
}

// news reads what reached agent after since, failing on an error.
func news(t *testing.T, f *rt.Field, agent string, since int64) model.InboxNews {
	t.Helper()
	n, err := f.Svc.InboxNews(context.Background(), agent, since)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func toastTexts(n model.InboxNews) []string {
	var out []string
	for _, t := range n.Toasts {
		out = append(out, t.Text)
	}
	return out
}

// A toast for each voter whose vote another's ballot closed, and none
// for the one who closed it; none of the past at the first look.
func TestInboxNewsToastsAVoteClosedByAnother(t *testing.T) {
	f := rt.New(t, policyWith(3, model.TieEscalate))
	p := openVote(t, f)
	first := map[string]model.InboxNews{}
	for _, who := range []string{lead1, lead3} {
		first[who] = news(t, f, who, 0)
		if len(first[who].Toasts) != 0 || first[who].Tail == 0 || first[who].Unread != 1 {
			t.Fatalf("%s's first look: %+v, want the vote's notice as the tail, unread, and no toast", who, first[who])
		}
	}
	vote(t, f, lead1, p.Conflict, "A")
	vote(t, f, lead2, p.Conflict, "B")
	vote(t, f, lead3, p.Conflict, "A")
	got := news(t, f, lead1, first[lead1].Tail)
	want := []string{"The vote on " + p.Conflict + " closed: " + p.A + " (A) prevails."}
	if !slices.Equal(toastTexts(got), want) || got.Tail == first[lead1].Tail || got.Unread != 2 {
		t.Fatalf("lead-1's news: %+v, want the toast %q and 2 unread", got, want)
	}
	if got := news(t, f, lead3, first[lead3].Tail); len(got.Toasts) != 0 {
		t.Fatalf("lead-3 closed the vote and got a toast: %+v", got.Toasts)
	}
}

// The owner of an escalation decided by someone else hears it in a
// toast, and a proposer what became of the proposal.
func TestInboxNewsToastsTheOwnerAndTheProposer(t *testing.T) {
	f, svc, _ := highway(t, nil)
	ctx := context.Background()
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	escalateThis(t, svc, p.Conflict, &model.Routing{To: owner}, &model.Proposed{WinnerID: &p.A})
	since := map[string]int64{}
	for _, who := range []string{owner, senior1, operator} {
		since[who] = news(t, f, who, 0).Tail
	}
	if _, err := svc.Approve(ctx, operator, model.ApproveRequest{ConflictID: p.Conflict, Rationale: "the proposal holds"}); err != nil {
		t.Fatal(err)
	}
	for who, want := range map[string][]string{
		owner:    {p.Conflict + ", escalated to you, was decided by " + operator + ": " + p.A + " (A) prevails."},
		senior1:  {"Your proposal on " + p.Conflict + " was approved by " + operator + "."},
		operator: nil, // their own decision
	} {
		if got := toastTexts(news(t, f, who, since[who])); !slices.Equal(got, want) {
			t.Errorf("%s's toasts: %q, want %q", who, got, want)
		}
	}
}

// A draft is kept per person, conflict and form until dropped; one with
// no text removes it; one on no conflict, or too long, is refused.
func TestDraftsAreKeptUntilDropped(t *testing.T) {
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	d := model.Draft{AgentID: operator, ConflictID: p.Conflict, Form: model.DraftDecide, Strategy: model.Synthesis,
		Rationale: "half a thought", Synthesis: "# both, reconciled"}
	if err := f.Svc.DraftSave(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := f.Svc.Drafts(ctx, operator, p.Conflict)
	if err != nil || len(got) != 1 || got[0].Rationale != d.Rationale || got[0].Synthesis != d.Synthesis ||
		got[0].Strategy != model.Synthesis || got[0].SavedAt.IsZero() {
		t.Fatalf("the draft read back: %+v (%v), want %+v stamped", got, err, d)
	}
	if others, _ := f.Svc.Drafts(ctx, senior1, p.Conflict); len(others) != 0 {
		t.Fatalf("another person's drafts: %+v", others)
	}
	blank := d
	blank.Rationale, blank.Synthesis = "  ", ""
	if err := f.Svc.DraftSave(ctx, blank); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Svc.Drafts(ctx, operator, p.Conflict); len(got) != 0 {
		t.Fatalf("a draft saved blank is kept: %+v", got)
	}
	if err := f.Svc.DraftSave(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := f.Svc.DraftDrop(ctx, operator, p.Conflict, model.DraftDecide); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Svc.Drafts(ctx, operator, p.Conflict); len(got) != 0 {
		t.Fatalf("a dropped draft is kept: %+v", got)
	}
	gone := d
	gone.ConflictID = "conflict-999"
	rt.WantError(t, f.Svc.DraftSave(ctx, gone), model.CodeConflictNotFound, model.OpAttune, false)
	huge := d
	huge.Rationale = strings.Repeat("x", model.MaxDraftBytes+1)
	rt.WantError(t, f.Svc.DraftSave(ctx, huge), model.CodeInvalidRequest, model.OpAttune, true)
}

// By person lists people only: not agents, not "vote".
func TestStatsByPersonListsPeopleOnly(t *testing.T) {
	f := rt.New(t, policyWith(3, model.TieEscalate))
	ctx := context.Background()
	a := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	merge(t, f, senior1, req(a.Conflict, model.Dismiss, "", "an agent decides"))
	b := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	merge(t, f, operator, req(b.Conflict, model.Authority, b.A, "a person decides"))
	v := openVote(t, f)
	vote(t, f, lead1, v.Conflict, "A")
	vote(t, f, lead2, v.Conflict, "A")
	vote(t, f, lead3, v.Conflict, "A")
	s, err := f.Svc.Stats(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var people []string
	strategies := 0
	for _, d := range s.DecisionTime {
		switch d.Dimension {
		case "person":
			people = append(people, d.Key)
		case "strategy":
			strategies += d.Count
		}
	}
	if !slices.Equal(people, []string{operator}) || strategies != 3 {
		t.Fatalf("by person %v, %d decisions by strategy; want the operator alone, and all 3 decisions by strategy", people, strategies)
	}
}
