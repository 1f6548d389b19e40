package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// testStats: every figure of Stats, on a field whose conflicts were
// written with known times, outcomes and routes.
func testStats(t *testing.T, e Engine) {
	st, _ := field(t, e)
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return at.Add(-d) }
	deadline := ago(time.Minute)
	resolved := func(s model.Strategy, winner, by string, when time.Time) *model.Resolution {
		r := &model.Resolution{Strategy: s, Rationale: "r", ResolvedBy: by, EpochResolved: 20, ResolvedAt: when}
		if winner != "" {
			r.WinnerID = &winner
		}
		return r
	}
	conflicts := []model.Conflict{
		{Type: model.ConflictFactual, Status: model.StatusResolved, DetectedAt: ago(10 * time.Hour),
			Resolution: resolved(model.Authority, "u1a", "a2", ago(9*time.Hour))},
		{Type: model.ConflictFactual, Status: model.StatusResolved, DetectedAt: ago(10 * time.Hour),
			Resolution: resolved(model.LastWriteWins, "u2b", "a2", ago(7*time.Hour))},
		{Type: model.ConflictStrategic, Status: model.StatusResolved, DetectedAt: ago(5 * time.Hour),
			Resolution: resolved(model.Dismiss, "", model.FallbackAgent, ago(4*time.Hour+30*time.Minute))},
		{Type: model.ConflictPriority, Status: model.StatusEscalated, DetectedAt: ago(30 * time.Minute),
			Escalation: &model.Escalation{By: "a1", Reason: "r", Epoch: 10, At: ago(20 * time.Minute)},
			Route:      &model.Route{Owner: "a2", Since: ago(20 * time.Minute), Deadline: &deadline}},
		{Type: model.ConflictFactual, Status: model.StatusEscalated, DetectedAt: ago(72 * time.Hour),
			Escalation: &model.Escalation{By: "a1", Reason: "r", Epoch: 10, At: ago(71 * time.Hour)}},
		{Type: model.ConflictStrategic, Status: model.StatusPendingVote, DetectedAt: ago(8 * 24 * time.Hour),
			VoteOpened: &model.Escalation{By: "a1", Reason: "r", Epoch: 11, At: ago(24 * time.Hour)}},
	}
	write(t, st, func(tx store.Tx) error {
		for i, c := range conflicts {
			a, b := unit(fmt.Sprintf("u%da", i+1), int64(2*i+1)), unit(fmt.Sprintf("u%db", i+1), int64(2*i+2))
			b.Source.AgentID, b.Source.AgentRole = "a2", "r2"
			for _, u := range []model.Unit{a, b} {
				if _, err := tx.UnitInsert(u); err != nil {
					return err
				}
			}
			c.ID, c.UnitA, c.UnitB, c.DetectedBy, c.Epoch = fmt.Sprintf("c%d", i+1), a.ID, b.ID, model.DetectedExplicit, int64(2*i+2)
			if _, err := tx.ConflictInsert(c); err != nil {
				return err
			}
		}
		return tx.BallotPut(model.Ballot{ConflictID: "c6", VoterID: "a1", Choice: "u6a", Rationale: "r", Epoch: 12, CastAt: ago(23 * time.Hour)})
	})
	var got model.Stats
	read(t, st, func(tx store.Tx) error {
		var err error
		got, err = tx.Stats(model.StatsQuery{Since: ago(48 * time.Hour), Now: at, Voters: []string{"a1", "a2"}})
		return err
	})
	h := int64(time.Hour / time.Millisecond)
	want := model.Stats{Since: ago(48 * time.Hour), Now: at,
		Open: []model.OpenCount{
			{Status: model.StatusEscalated, Type: model.ConflictFactual, Count: 1, UnderWeek: 1},
			{Status: model.StatusEscalated, Type: model.ConflictPriority, Count: 1, UnderHour: 1},
			{Status: model.StatusPendingVote, Type: model.ConflictStrategic, Count: 1, Older: 1},
		},
		DecisionTime: []model.DecisionTime{
			{Dimension: "type", Key: "factual", Count: 2, P50MS: h, P90MS: 3 * h},
			{Dimension: "type", Key: "strategic", Count: 1, P50MS: h / 2, P90MS: h / 2},
			{Dimension: "strategy", Key: "authority", Count: 1, P50MS: h, P90MS: h},
			{Dimension: "strategy", Key: "dismiss", Count: 1, P50MS: h / 2, P90MS: h / 2},
			{Dimension: "strategy", Key: "last_write_wins", Count: 1, P50MS: 3 * h, P90MS: 3 * h},
			{Dimension: "person", Key: "a2", Count: 2, P50MS: h, P90MS: 3 * h},
			{Dimension: "person", Key: model.FallbackAgent, Count: 1, P50MS: h / 2, P90MS: h / 2},
		},
		Days:     []model.DayCount{{Day: "2026-11-18"}, {Day: "2026-11-19"}, {Day: "2026-11-20", Opened: 4, Decided: 3}},
		Pairs:    []model.PairCount{{AgentA: "a1", AgentB: "a2", Conflicts: 4}},
		Outcomes: []model.AgentOutcome{{Agent: "a1", Won: 1, Lost: 1}, {Agent: "a2", Won: 1, Lost: 1}},
		Owners:   []model.OwnerLoad{{Owner: "", Open: 1}, {Owner: "a2", Open: 1, Overdue: 1}},
		// The only vote is still open: nobody has missed it yet.
		Voters:    []model.VoterTally{{Voter: "a1", Cast: 1}, {Voter: "a2"}},
		Fallbacks: []model.FallbackCount{{Strategy: "dismiss", Count: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stats:\n got %+v\nwant %+v", got, want)
	}
	// Nothing since: only what is open now.
	read(t, st, func(tx store.Tx) error {
		var err error
		got, err = tx.Stats(model.StatsQuery{Since: at.Add(time.Hour), Now: at})
		return err
	})
	if len(got.Open) != 3 || len(got.DecisionTime) != 0 || len(got.Pairs) != 0 || len(got.Outcomes) != 0 || len(got.Fallbacks) != 0 {
		t.Errorf("stats since later than every change: %+v", got)
	}
}

// testStatsMissedVotes: a voter missed a vote that closed without their
// ballot, unless recusal kept them from it (they wrote one of its
// units); a vote still open is missed by nobody.
func testStatsMissedVotes(t *testing.T, e Engine) {
	st, _ := field(t, e)
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	opened := &model.Escalation{By: "a1", Reason: "r", Epoch: 4, At: at.Add(-2 * time.Hour)}
	write(t, st, func(tx store.Tx) error {
		if err := tx.AgentInsert(model.Agent{ID: "a3", Role: "lead", Kind: model.KindHuman, Authority: 6,
			Status: model.AgentIdle, RegisteredAt: now()}, 1); err != nil {
			return err
		}
		for i, status := range []model.ConflictStatus{model.StatusResolved, model.StatusPendingVote} {
			a, b := unit(fmt.Sprintf("v%da", i), int64(2*i+1)), unit(fmt.Sprintf("v%db", i), int64(2*i+2))
			b.Source.AgentID, b.Source.AgentRole = "a2", "r2"
			for _, u := range []model.Unit{a, b} {
				if _, err := tx.UnitInsert(u); err != nil {
					return err
				}
			}
			c := model.Conflict{ID: fmt.Sprintf("v%d", i), Type: model.ConflictStrategic, Status: status, UnitA: a.ID, UnitB: b.ID,
				DetectedBy: model.DetectedExplicit, DetectedAt: at.Add(-3 * time.Hour), Epoch: int64(2*i + 2), VoteOpened: opened}
			if status == model.StatusResolved {
				c.Resolution = &model.Resolution{Strategy: model.Vote, WinnerID: &a.ID, Rationale: "r", ResolvedBy: "a1",
					EpochResolved: 9, ResolvedAt: at.Add(-time.Hour)}
			}
			if _, err := tx.ConflictInsert(c); err != nil {
				return err
			}
		}
		return tx.BallotPut(model.Ballot{ConflictID: "v0", VoterID: "a1", Choice: "v0a", Rationale: "r", Epoch: 8,
			CastAt: at.Add(-90 * time.Minute)})
	})
	for _, recusal := range []bool{true, false} {
		var got model.Stats
		read(t, st, func(tx store.Tx) (err error) {
			got, err = tx.Stats(model.StatsQuery{Since: at.Add(-24 * time.Hour), Now: at, Voters: []string{"a1", "a2", "a3"}, Recusal: recusal})
			return err
		})
		// a1 voted; a2 wrote unit B, so with recusal could not; a3 could
		// and did not. v1 is open: missed by nobody.
		want := []model.VoterTally{{Voter: "a1", Cast: 1}, {Voter: "a2"}, {Voter: "a3", Missed: 1}}
		if !recusal {
			want[1].Missed = 1
		}
		if !reflect.DeepEqual(got.Voters, want) {
			t.Errorf("recusal %v: voters %+v, want %+v", recusal, got.Voters, want)
		}
	}
}
