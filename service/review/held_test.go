package review_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

// Decisions held in their undo window: the screen writes them, takes them
// back, or ends first and a sweep carries them out as their person once
// due, telling them in their inbox when the field refused.

const window = 5 * time.Second

// hold holds reqs for caller on svc and returns their ids.
func hold(t *testing.T, svc *review.Service, caller string, reqs model.HeldRequests) []string {
	t.Helper()
	ids := review.NewHeldIDs(reqs.Len())
	if err := svc.Hold(context.Background(), caller, ids, reqs, window); err != nil {
		t.Fatalf("hold: %v", err)
	}
	return ids
}

func heldOf(t *testing.T, f *rt.Field, agent string) []model.HeldDecision {
	t.Helper()
	var out []model.HeldDecision
	f.Read(t, func(tx store.Tx) (err error) { out, err = tx.HeldOf(agent); return err })
	return out
}

func TestAHeldDecisionIsWrittenByTheScreenAndLeavesTheField(t *testing.T) {
	f, svc, _ := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	v := openVote(t, f)
	ids := hold(t, svc, operator, model.HeldRequests{
		Merges: []model.MergeRequest{req(p.Conflict, model.Dismiss, "", "both wrong")},
		Votes:  []model.VoteRequest{{ConflictID: v.Conflict, Choice: "A", Rationale: "A holds"}}})
	if d := f.Detail(t, p.Conflict); d.Conflict.Status == model.StatusResolved {
		t.Fatal("holding a decision wrote it")
	}
	if got := heldOf(t, f, operator); len(got) != 2 || got[0].DoneAt != nil {
		t.Fatalf("held rows: %+v", got)
	}
	res := svc.WriteHeld(context.Background(), operator, ids)
	if len(res) != 2 || res[0].Err != nil || res[0].Merge == nil || res[1].Err != nil || res[1].Vote == nil || res[0].Swept {
		t.Fatalf("WriteHeld: %+v", res)
	}
	if d := f.Detail(t, p.Conflict); d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution.ResolvedBy != operator {
		t.Fatalf("after WriteHeld: %+v", d.Conflict)
	}
	if d := f.Detail(t, v.Conflict); len(d.Ballots) != 1 || d.Ballots[0].VoterID != operator {
		t.Fatalf("the held ballot: %+v", d.Ballots)
	}
	if got := heldOf(t, f, operator); len(got) != 0 {
		t.Fatalf("held rows left after writing: %+v", got)
	}
}

func TestUndoTakesAHeldDecisionBackAndNothingIsWritten(t *testing.T) {
	f, svc, clk := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	ids := hold(t, svc, operator, model.HeldRequests{Merges: []model.MergeRequest{req(p.Conflict, model.Dismiss, "", "both wrong")}})
	if n, err := svc.Unhold(context.Background(), operator, ids); err != nil || n != 1 {
		t.Fatalf("Unhold: %d, %v", n, err)
	}
	clk.advance(time.Hour)
	if rep := sweep(t, svc); len(rep.Held) != 0 {
		t.Fatalf("a sweep carried out an undone decision: %+v", rep.Held)
	}
	if d := f.Detail(t, p.Conflict); d.Conflict.Status != model.StatusDetected {
		t.Fatalf("an undone decision was written: %+v", d.Conflict)
	}
	if n, err := svc.Unhold(context.Background(), operator, ids); err != nil || n != 0 {
		t.Fatalf("Unhold again: %d, %v", n, err)
	}
}

// A screen that ended with a decision in its window: the sweep before it
// is due leaves it; the one after carries it out as its person, once,
// whoever else sweeps; the person's next screen hears of it, once.
func TestASweepCarriesOutAHeldDecisionWhoseScreenEnded(t *testing.T) {
	f, svc, clk := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	hold(t, svc, operator, model.HeldRequests{Merges: []model.MergeRequest{req(p.Conflict, model.Dismiss, "", "both wrong")}})
	clk.advance(window)
	if rep := sweep(t, svc); len(rep.Held) != 0 {
		t.Fatalf("carried out within its grace: %+v", rep.Held)
	}
	clk.advance(review.HeldGrace)
	var wg sync.WaitGroup
	reports := make([]model.SweepReport, 3)
	for i := range reports {
		other := review.New(f.Store).WithClock(clk.now)
		wg.Go(func() {
			rep, err := other.Sweep(context.Background())
			if err != nil {
				t.Error(err)
			}
			reports[i] = rep
		})
	}
	wg.Wait()
	var outs []model.HeldOutcome
	for _, rep := range reports {
		outs = append(outs, rep.Held...)
	}
	if len(outs) != 1 || !outs[0].Written || outs[0].AgentID != operator || outs[0].ConflictID != p.Conflict {
		t.Fatalf("three racing sweeps carried out %+v; want it once, written", outs)
	}
	d := f.Detail(t, p.Conflict)
	if d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution.ResolvedBy != operator {
		t.Fatalf("after the sweep: %+v", d.Conflict)
	}
	done, waiting, err := svc.HeldReport(context.Background(), operator)
	if err != nil || len(done) != 1 || done[0].Outcome != "" || len(waiting) != 0 {
		t.Fatalf("HeldReport: %+v %+v %v", done, waiting, err)
	}
	if done, _, _ := svc.HeldReport(context.Background(), operator); len(done) != 0 {
		t.Fatalf("HeldReport said it twice: %+v", done)
	}
}

// Decided first by someone else: the sweep writes nothing, marks it done
// with the refusal, and tells its person in their inbox; the screen that
// writes a held decision another sweep carried out hears what came of it.
func TestAHeldDecisionTheFieldRefusesIsToldToItsPerson(t *testing.T) {
	f, svc, clk := highway(t, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	ids := hold(t, svc, operator, model.HeldRequests{Merges: []model.MergeRequest{
		{ConflictID: p.Conflict, Strategy: model.Dismiss, ExpectedVersion: 1, Resolution: model.MergeResolution{Rationale: "both wrong"}}}})
	merge(t, f, senior1, req(p.Conflict, model.Dismiss, "", "neither holds"))
	clk.advance(window + review.HeldGrace)
	rep := sweep(t, svc)
	if len(rep.Held) != 1 || rep.Held[0].Written || !strings.Contains(rep.Held[0].Reason, "changed since you read it") {
		t.Fatalf("the sweep's report: %+v", rep.Held)
	}
	d := f.Detail(t, p.Conflict)
	if d.Conflict.Resolution.ResolvedBy != senior1 {
		t.Fatalf("the refused decision was written over senior-1's: %+v", d.Conflict.Resolution)
	}
	inbox, err := svc.Inbox(context.Background(), operator, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var told *model.Notification
	for i, n := range inbox {
		if n.Event == model.EventNotWritten {
			told = &inbox[i]
		}
	}
	if told == nil || told.ConflictID == nil || *told.ConflictID != p.Conflict || !told.RequiresAction ||
		!strings.Contains(told.Summary, "was not written: "+p.Conflict+" changed since you read it") {
		t.Fatalf("the operator's inbox: %+v", inbox)
	}
	res := svc.WriteHeld(context.Background(), operator, ids)
	if len(res) != 1 || !res[0].Swept || res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "changed since you read it") {
		t.Fatalf("WriteHeld after the sweep: %+v", res)
	}
	if got := heldOf(t, f, operator); len(got) != 0 {
		t.Fatalf("held rows left: %+v", got)
	}
}

// A screen whose session closed carries out its held decision at once
// (LeaveHeld), before it is due; a rework, a ballot and a merge of one
// batch each in its own transaction.
func TestLeavingCarriesOutAHeldBatchAtOnce(t *testing.T) {
	f, svc, _ := highway(t, nil)
	esc, _ := escalate(t, f, svc, nil, nil)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	v := openVote(t, f)
	ids := hold(t, svc, operator, model.HeldRequests{
		Merges:  []model.MergeRequest{req(p.Conflict, model.Dismiss, "", "both wrong")},
		Votes:   []model.VoteRequest{{ConflictID: v.Conflict, Choice: "B", Rationale: "B holds"}},
		Reworks: []model.ReworkRequest{{ConflictID: esc.Conflict, Rationale: "cite the source"}}})
	outs, err := svc.LeaveHeld(context.Background(), ids)
	if err != nil || len(outs) != 3 {
		t.Fatalf("LeaveHeld: %+v %v", outs, err)
	}
	for _, o := range outs {
		if !o.Written {
			t.Errorf("not written: %+v", o)
		}
	}
	if d := f.Detail(t, esc.Conflict); d.Conflict.Status != model.StatusResolving {
		t.Errorf("the held rework: %s", d.Conflict.Status)
	}
	if d := f.Detail(t, v.Conflict); len(d.Ballots) != 1 {
		t.Errorf("the held ballot: %+v", d.Ballots)
	}
	if outs, err := svc.LeaveHeld(context.Background(), ids); err != nil || len(outs) != 0 {
		t.Fatalf("LeaveHeld again: %+v %v", outs, err)
	}
}
