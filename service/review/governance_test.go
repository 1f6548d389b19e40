package review_test

import (
	"context"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

// Under recusal an author neither decides nor votes on a conflict about
// their own unit, and a vote that needs them cannot open.
func TestRecusalKeepsAuthorsFromDecidingAndVoting(t *testing.T) {
	p := rt.Policy()
	p.Recusal = true
	f := rt.New(t, p)
	c := f.Contradict(t, model.ConflictFactual, rt.Side{By: rt.Senior1, Score: 0.9}, rt.Side{By: rt.Lead1, Score: 0.2})
	_, err := f.Svc.Merge(context.Background(), rt.Senior1, req(c.Conflict, model.ConfidenceWeighted, c.A, "mine is better"))
	rt.WantError(t, err, model.CodeNotPermitted, model.OpMerge, false)
	merge(t, f, rt.Senior1, req(c.Conflict, model.Vote, "", "let the others decide"))
	_, err = f.Svc.Vote(context.Background(), rt.Lead1, model.VoteRequest{ConflictID: c.Conflict, Choice: "B", Rationale: "mine"})
	rt.WantError(t, err, model.CodeNotPermitted, model.OpVote, false)
	vote(t, f, rt.Lead2, c.Conflict, "A")
	vote(t, f, rt.Lead3, c.Conflict, "A")
	if r := vote(t, f, rt.Senior2, c.Conflict, "B"); !r.Closed || r.Conflict.Resolution.WinnerID == nil || *r.Conflict.Resolution.WinnerID != c.A {
		t.Errorf("the vote of the others did not close it for A: %+v", r)
	}

	// Four of the six voters left once two authors recuse: a quorum of 5
	// cannot be reached.
	p.Quorum = 5
	g := rt.New(t, p)
	d := g.Contradict(t, model.ConflictFactual, rt.Side{By: rt.Senior1}, rt.Side{By: rt.Lead1})
	_, err = g.Svc.Merge(context.Background(), rt.Operator, req(d.Conflict, model.Vote, "", "vote"))
	if pe := rt.WantError(t, err, model.CodeMergeFailed, model.OpMerge, true); !strings.Contains(pe.Message, "only 4 agents may vote") {
		t.Errorf("message %q", pe.Message)
	}
}

// An operator override closes a stalled vote with the operator's own
// decision, recorded with the ballots cast so far.
func TestOperatorOverrideClosesAStalledVoteWithItsBallots(t *testing.T) {
	p := rt.Policy()
	p.OperatorOverride = true
	f := rt.New(t, p)
	c := openVote(t, f)
	vote(t, f, rt.Lead1, c.Conflict, "A")
	_, err := f.Svc.Merge(context.Background(), rt.Senior1, req(c.Conflict, model.Dismiss, "", "not a conflict"))
	rt.WantError(t, err, model.CodeInvalidTransition, model.OpMerge, true)
	resp := merge(t, f, rt.Operator, req(c.Conflict, model.Dismiss, "", "the vote has stalled for a week"))
	r := resp.Conflict.Resolution
	if resp.Status != model.StatusResolved || r == nil || !strings.Contains(r.Rationale, "the vote has stalled for a week") ||
		!strings.Contains(r.Rationale, "Overrides the vote at 1 for A, 0 for B of quorum 3.") || !strings.Contains(r.Rationale, rt.Lead1+" for "+c.A) {
		t.Errorf("resolution %+v", r)
	}
	// A vote's eligible voters and its authors are told (model.Concerned).
	wantStrings(t, "notified", resp.SideEffects.NotifiedAgents, sorted(append([]string{rt.Senior2, rt.Standard}, rt.Voters...)...))
	logged := wantLogged(t, f, c.Conflict, resp.Conflict.Resolution.EpochResolved, model.OpMerge, rt.Operator, resp.SideEffects.NotifiedAgents)
	_ = logged
	if d := f.Detail(t, c.Conflict); len(d.Ballots) != 1 {
		t.Errorf("the ballots were not kept: %+v", d.Ballots)
	}
}
