package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
	"arbiter/store/sqlite"
)

// fieldFacts is what checkField found, for the log and the docs.
type fieldFacts struct {
	units, conflicts, events int
	byStatus                 map[model.ConflictStatus]int
	byStrategy               map[model.Strategy]int
	// timeouts and reminders count, per conflict, the events a fallback
	// and a reminder logged.
	timeouts, reminders map[string]int
	epoch               int64
}

func (f fieldFacts) String() string {
	return fmt.Sprintf("field: %d units, %d conflicts %v, resolved by %v, %d events, epoch %d",
		f.units, f.conflicts, f.byStatus, f.byStrategy, f.events, f.epoch)
}

// checkField opens the field at path as arbiter would (recovering what a
// killed writer left) and checks that it is sound and that every decision
// in it is whole:
//
//   - SQLite's integrity check passes (on a file);
//   - every conflict's version is 1 plus the MERGEs and closing ballots
//     logged for it: no decision lost or applied twice;
//   - a resolved conflict has exactly one MERGE or VOTE event that
//     resolved it, at its epoch_resolved and by its resolved_by; its
//     resolution is complete; its units are superseded as its strategy
//     says (the loser; both for synthesis, whose unit exists and
//     elaborates both; none for dismiss); both authors got
//     conflict.resolved at that epoch; a vote's winner has the majority
//     of at least a quorum of ballots, none cast after the close;
//   - an open conflict has no resolving event and no conflict.resolved
//     notification, and both its units are contested; an escalated one
//     has its escalation, a pending vote fewer ballots than the quorum;
//   - a unit is in at most one conflict, and one in none is active;
//     every synthesis unit belongs to exactly one resolved conflict;
//   - every unit has its RECORD event (or is a synthesis), each
//     conflict's events are in epoch order, and the clock is at the
//     log's largest epoch.
//
// Then it compares the field with what the workers said (told): exactly,
// or, after kills, up to the operations in flight.
func checkField(t *testing.T, path string, told *tally) fieldFacts {
	t.Helper()
	waitWorkersGone(t)
	ctx := context.Background()
	st, err := field.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("open the field after the run: %v", err)
	}
	defer st.Close()
	if sq, ok := st.(*sqlite.Store); ok {
		if res, err := sq.IntegrityCheck(ctx); err != nil || !slices.Equal(res, []string{"ok"}) {
			t.Fatalf("integrity check: %v %v", res, err)
		}
	}
	svc := review.New(st)

	facts := fieldFacts{byStatus: map[model.ConflictStatus]int{}, byStrategy: map[model.Strategy]int{},
		timeouts: map[string]int{}, reminders: map[string]int{}}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
	}

	// Units, their RECORD events, the synthesis units' relations, the log
	// and the clock, read through the store as any engine keeps them.
	type unitRow struct {
		status, typ, agent string
		inConflicts        int
	}
	units := map[string]*unitRow{}
	recorded := map[string]bool{}
	elaborates := map[string][]string{}
	events := map[string]int{}
	mergesOf := map[string]int{}
	lastEpoch, ordered := int64(0), true
	lastOf := map[string]int64{} // conflict → epoch of its last event
	err = st.Read(ctx, func(tx store.Tx) error {
		err := tx.UnitEach(func(_ int64, u model.Unit) error {
			units[u.ID] = &unitRow{status: string(u.Status), typ: string(u.Type), agent: u.Source.AgentID}
			for _, r := range u.Relations {
				if r.Type == model.RelElaborates {
					elaborates[u.ID] = append(elaborates[u.ID], r.TargetID)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.EventEach(func(e model.Event) error {
			op := e.Operation
			if e.AgentID == model.FallbackAgent || e.AgentID == model.SweepAgent {
				op = "SWEEP " + op // what deadlines did, apart from what workers were told
			}
			events[op]++
			facts.events++
			if e.Operation == "RECORD" && e.UnitID != nil {
				recorded[*e.UnitID] = true
			}
			if e.Operation == "MERGE" && e.ConflictID != nil {
				mergesOf[*e.ConflictID]++
			}
			// Writes about one conflict lock it, so each saw the one
			// before: their epochs grow in the log's order. Writes about
			// different conflicts commit in parallel on PostgreSQL, their
			// epochs in either order.
			if e.ConflictID != nil {
				if e.Epoch < lastOf[*e.ConflictID] {
					ordered = false
				}
				lastOf[*e.ConflictID] = e.Epoch
			}
			lastEpoch = max(lastEpoch, e.Epoch)
			return nil
		})
		if err != nil {
			return err
		}
		facts.epoch, err = tx.Epoch()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	facts.units = len(units)
	if !ordered || facts.epoch != lastEpoch {
		fail("a conflict's events are not in epoch order, or the clock (%d) is not at the log's last epoch (%d)", facts.epoch, lastEpoch)
	}

	// Every conflict, as a reviewer reads it.
	rows, err := svc.List(ctx, model.ListQuery{Sort: model.SortAge})
	if err != nil {
		t.Fatal(err)
	}
	facts.conflicts = len(rows)
	synthesisOf := map[string]string{}
	policy, err := svc.Policy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		d, err := svc.Detail(ctx, row.ID)
		if err != nil {
			t.Fatalf("detail %s: %v", row.ID, err)
		}
		c := d.Conflict
		facts.byStatus[c.Status]++
		a, b := units[c.UnitA], units[c.UnitB]
		if a == nil || b == nil {
			fail("%s: a unit is missing", c.ID)
			continue
		}
		a.inConflicts++
		b.inConflicts++
		var merges, closing, detects, reworks, reminders, timeouts int
		var resolving []model.Event
		var voteEpochs []int64
		for _, e := range d.Events {
			var p struct {
				Status  model.ConflictStatus `json:"status"`
				Outcome string               `json:"outcome"`
			}
			json.Unmarshal(e.Payload, &p)
			switch e.Operation {
			case "DETECT":
				detects++
			case "MERGE":
				merges++
			case "REWORK":
				reworks++
			case "REMIND":
				reminders++
			case "VOTE":
				voteEpochs = append(voteEpochs, e.Epoch)
				if p.Status != model.StatusPendingVote {
					closing++
				}
			}
			if p.Outcome == "timeout" {
				timeouts++
				if e.AgentID != model.FallbackAgent {
					fail("%s: a timeout logged by %s, not by the fallback", c.ID, e.AgentID)
				}
			}
			if (e.Operation == "MERGE" || e.Operation == "VOTE") && p.Status == model.StatusResolved {
				resolving = append(resolving, e)
			}
		}
		facts.timeouts[c.ID], facts.reminders[c.ID] = timeouts, reminders
		// A conflict's version counts every change: MERGEs (a fallback's
		// too), closing ballots and reworks; reminders change nothing.
		if detects != 1 || c.Version != int64(1+merges+closing+reworks) {
			fail("%s: version %d after %d DETECT, %d MERGE, %d closing VOTE and %d REWORK events", c.ID, c.Version, detects, merges, closing, reworks)
		}
		// A route is reminded at a fifth of its time left (1), then told it
		// is overdue (2) — or only the latter, if no sweep came between.
		if r := c.Route; r != nil && (r.Reminded > 0) != (reminders > 0) || (r != nil && reminders > r.Reminded) {
			fail("%s: its route counts %d reminders, the log holds %d", c.ID, r.Reminded, reminders)
		}
		if reminders > 2 {
			fail("%s: reminded %d times", c.ID, reminders)
		}
		notified := map[string][]string{} // event → agents, at the conflict's last change
		for _, n := range d.Notifications {
			if r := c.Resolution; r != nil && n.Epoch == r.EpochResolved {
				notified[n.Event] = append(notified[n.Event], n.AgentID)
			}
			if c.Resolution == nil && n.Event == model.EventConflictResolved {
				fail("%s is %s but %s was told it is resolved", c.ID, c.Status, n.AgentID)
			}
		}
		authors := sorted(a.agent, b.agent)
		// The queue's row: its authors and ballot counts, kept by the
		// field's triggers, agree with the units and the ballots.
		var forA, forB int
		for _, v := range d.Ballots {
			forA += btoi(v.Choice == c.UnitA)
			forB += btoi(v.Choice == c.UnitB)
		}
		if row.AgentA != a.agent || row.AgentB != b.agent {
			fail("%s lists authors %s and %s, its units are by %s and %s", c.ID, row.AgentA, row.AgentB, a.agent, b.agent)
		}
		if got := row.Tally; (got == nil && forA+forB > 0) || (got != nil && (got.ForA != forA || got.ForB != forB)) {
			fail("%s lists the tally %+v, its ballots are %d for A and %d for B", c.ID, got, forA, forB)
		}

		r := c.Resolution
		if c.Status != model.StatusResolved {
			if len(resolving) != 0 || r != nil {
				fail("%s is %s but has a resolution or %d resolving events", c.ID, c.Status, len(resolving))
			}
			if a.status != string(model.UnitContested) || b.status != string(model.UnitContested) {
				fail("%s is %s but its units are %s and %s, not contested", c.ID, c.Status, a.status, b.status)
			}
			switch c.Status {
			case model.StatusEscalated:
				if c.Escalation == nil || c.Escalation.By == "" {
					fail("%s is escalated without its escalation", c.ID)
				}
				for _, bl := range d.Ballots {
					if bl.Epoch > c.Escalation.Epoch {
						fail("%s: %s's ballot at epoch %d came after the escalation at %d", c.ID, bl.VoterID, bl.Epoch, c.Escalation.Epoch)
					}
				}
			case model.StatusPendingVote:
				if c.VoteOpened == nil || len(d.Ballots) >= policy.Quorum {
					fail("%s is put to a vote with %d ballots (quorum %d), opened %v", c.ID, len(d.Ballots), policy.Quorum, c.VoteOpened)
				}
			}
			continue
		}

		// Resolved: exactly once, wholly.
		facts.byStrategy[r.Strategy]++
		if len(resolving) != 1 {
			fail("%s is resolved by %d events, want exactly 1", c.ID, len(resolving))
			continue
		}
		if e := resolving[0]; e.Epoch != r.EpochResolved || e.AgentID != r.ResolvedBy {
			fail("%s: resolved at %d by %s, but its event is at %d by %s", c.ID, r.EpochResolved, r.ResolvedBy, e.Epoch, e.AgentID)
		}
		if r.Rationale == "" || r.ResolvedAt.IsZero() {
			fail("%s: incomplete resolution %+v", c.ID, r)
		}
		// Both authors are told, among everyone concerned
		// (model.Concerned): that it resolved, or, having cast a ballot,
		// that the vote closed.
		told := append(slices.Clone(notified[model.EventConflictResolved]), notified[model.EventVoteClosed]...)
		for _, au := range authors {
			if !slices.Contains(told, au) {
				fail("%s: author %s was not told it resolved (told: %v)", c.ID, au, sorted(told...))
			}
		}
		switch r.Strategy {
		case model.Synthesis:
			if r.SynthesisUnitID == nil || r.WinnerID != nil {
				fail("%s: synthesis without its unit, or with a winner", c.ID)
				continue
			}
			s := units[*r.SynthesisUnitID]
			if s == nil || s.typ != string(model.TypeSynthesis) || s.status != string(model.UnitActive) ||
				!slices.Equal(sorted(elaborates[*r.SynthesisUnitID]...), sorted(c.UnitA, c.UnitB)) {
				fail("%s: synthesis unit %s is %+v, elaborating %v", c.ID, *r.SynthesisUnitID, s, elaborates[*r.SynthesisUnitID])
			}
			synthesisOf[*r.SynthesisUnitID] = c.ID
			if a.status != string(model.UnitSuperseded) || b.status != string(model.UnitSuperseded) {
				fail("%s: synthesis left its units %s and %s", c.ID, a.status, b.status)
			}
		case model.Dismiss:
			if r.WinnerID != nil || a.status != string(model.UnitActive) || b.status != string(model.UnitActive) {
				fail("%s: dismissed with winner %v, units %s and %s", c.ID, r.WinnerID, a.status, b.status)
			}
		case model.Rework:
			if r.WinnerID != nil || (a.status != string(model.UnitSuperseded) && b.status != string(model.UnitSuperseded)) {
				fail("%s: resolved by a revision with winner %v, units %s and %s", c.ID, r.WinnerID, a.status, b.status)
			}
		default:
			if r.WinnerID == nil {
				fail("%s: %s without a winner", c.ID, r.Strategy)
				continue
			}
			winner, loser := a, b
			if *r.WinnerID == c.UnitB {
				winner, loser = b, a
			} else if *r.WinnerID != c.UnitA {
				fail("%s: winner %s is not one of its units", c.ID, *r.WinnerID)
			}
			if winner.status != string(model.UnitActive) || loser.status != string(model.UnitSuperseded) {
				fail("%s: %s left the winner %s and the loser %s", c.ID, r.Strategy, winner.status, loser.status)
			}
		}
		if r.Strategy == model.Vote {
			forWinner := 0
			for _, bl := range d.Ballots {
				if bl.Epoch > r.EpochResolved {
					fail("%s: %s's ballot at epoch %d counted after the vote closed at %d", c.ID, bl.VoterID, bl.Epoch, r.EpochResolved)
				}
				if bl.Choice == *r.WinnerID {
					forWinner++
				}
			}
			least := policy.Quorum
			if r.ResolvedBy == model.FallbackAgent { // at its deadline
				least = max(1, policy.VoteMinBallots)
			}
			if len(d.Ballots) < least || 2*forWinner <= len(d.Ballots) {
				fail("%s: won by vote with %d of %d ballots (at least %d needed)", c.ID, forWinner, len(d.Ballots), least)
			}
			var voters []string
			for _, bl := range d.Ballots {
				voters = append(voters, bl.VoterID)
			}
			if got := sorted(notified[model.EventVoteClosed]...); !slices.Equal(got, sorted(voters...)) {
				fail("%s: vote_closed went to %v, want the voters %v", c.ID, got, sorted(voters...))
			}
		}
		for _, e := range voteEpochs {
			if e > r.EpochResolved {
				fail("%s: a VOTE at epoch %d after it was resolved at %d", c.ID, e, r.EpochResolved)
			}
		}
	}

	synthesisUnits := 0
	for id, u := range units {
		switch {
		case u.inConflicts > 1:
			fail("%s is in %d conflicts; the workers give every conflict fresh units", id, u.inConflicts)
		case u.inConflicts == 0 && u.status != string(model.UnitActive):
			fail("%s is in no conflict but %s", id, u.status)
		}
		if u.typ == string(model.TypeSynthesis) {
			synthesisUnits++
			if synthesisOf[id] == "" {
				fail("synthesis unit %s belongs to no resolved conflict: half a decision", id)
			}
		} else if !recorded[id] {
			fail("%s has no RECORD event", id)
		}
	}

	// The field against what the workers said.
	between := func(what string, got, told, inFlight int) {
		t.Helper()
		if got < told || got > told+inFlight {
			fail("%s: the field holds %d, the workers were told %d (%d in flight when killed)", what, got, told, inFlight)
		}
	}
	between("RECORDs", events["RECORD"], len(told.units), told.inFlight["record"])
	between("conflicts", len(rows), len(told.conflicts), told.inFlight["record"])
	between("MERGEs", events["MERGE"], told.merged(), told.inFlight["merge"])
	between("ballots", events["VOTE"], told.votes, told.inFlight["vote"])
	between("synthesis units", synthesisUnits, told.merges[string(model.Synthesis)], told.inFlight["merge"])
	for id := range told.units {
		if units[id] == nil {
			fail("%s was recorded, but the field does not hold it", id)
		}
	}
	for id := range told.conflicts {
		if !slices.ContainsFunc(rows, func(r model.ConflictSummary) bool { return r.ID == id }) {
			fail("%s was opened, but the field does not hold it", id)
		}
	}
	for id, n := range told.mergedIDs {
		if got := mergesOf[id]; got < n {
			fail("%s: %d MERGEs accepted, %d in the field", id, n, got)
		}
	}
	for _, u := range told.unexpected {
		fail("a worker met %s", u)
	}
	// The counts the queue's header shows, kept by the field's triggers.
	counts, err := svc.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range model.ConflictStatuses {
		if counts[s] != facts.byStatus[s] {
			fail("the field counts %d %s conflicts, there are %d", counts[s], s, facts.byStatus[s])
		}
	}
	return facts
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sorted(s ...string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
