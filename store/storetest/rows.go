package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

func testClock(t *testing.T, e Engine) {
	st, _ := field(t, e)
	var base int64
	read(t, st, func(tx store.Tx) (err error) { base, err = tx.Epoch(); return err })
	write(t, st, func(tx store.Tx) error {
		for _, step := range []struct {
			do   func() (int64, error)
			want int64
		}{
			{tx.EpochTick, base + 1},
			{tx.EpochTick, base + 2},
			{func() (int64, error) { return tx.EpochWitness(base + 10) }, base + 11}, // max(local, 10) + 1
			{func() (int64, error) { return tx.EpochWitness(3) }, base + 12},         // max(local, 3) + 1
		} {
			got, err := step.do()
			if err != nil || got != step.want {
				t.Fatalf("clock %d (%v), want %d", got, err, step.want)
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		if got, err := tx.Epoch(); err != nil || got != base+12 {
			t.Fatalf("epoch %d (%v) after commit, want %d", got, err, base+12)
		}
		return nil
	})
}

func testIDs(t *testing.T, e Engine) {
	st, _ := field(t, e)
	var ids []string
	write(t, st, func(tx store.Tx) error {
		for _, id := range []string{"", "", "ext-01HZX", ""} {
			got, err := tx.UnitInsert(unit(id, 1))
			if err != nil {
				return err
			}
			ids = append(ids, got)
		}
		c, err := tx.ConflictInsert(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: ids[0], UnitB: ids[1], DetectedBy: model.DetectedExplicit, DetectedAt: now(), Epoch: 1})
		ids = append(ids, c)
		return err
	})
	want := []string{"mem-001", "mem-002", "ext-01HZX", "mem-004", "conflict-001"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
	read(t, st, func(tx store.Tx) error {
		if n, err := tx.UnitSeqNext(); err != nil || n != 5 {
			t.Fatalf("next unit seq %d (%v), want 5", n, err)
		}
		return nil
	})
}

func testStale(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusDetected)
	var c model.Conflict
	read(t, st, func(tx store.Tx) (err error) { c, err = tx.Conflict("c1"); return err })
	if c.Version != 1 {
		t.Fatalf("a new conflict is at version %d, want 1", c.Version)
	}
	esc := c
	esc.Status = model.StatusEscalated
	esc.Escalation = &model.Escalation{By: "a1", Reason: "why", Epoch: 3, At: now()}
	write(t, st, func(tx store.Tx) error { return tx.ConflictUpdate(esc, 1) })

	dismissed := c
	dismissed.Status = model.StatusResolved
	dismissed.Resolution = &model.Resolution{Strategy: model.Dismiss, Rationale: "r", ResolvedBy: "a1", EpochResolved: 4, ResolvedAt: now()}
	err := st.Write(context.Background(), func(tx store.Tx) error { return tx.ConflictUpdate(dismissed, 1) })
	if !store.IsStale(err) {
		t.Fatalf("update at an old version: %v, want ErrStale", err)
	}
	read(t, st, func(tx store.Tx) (err error) { c, err = tx.Conflict("c1"); return err })
	if c.Version != 2 || c.Status != model.StatusEscalated || c.Resolution != nil || c.Escalation.Reason != "why" {
		t.Fatalf("after a stale update the conflict is %+v, want escalated at version 2", c)
	}
	err = st.Write(context.Background(), func(tx store.Tx) error {
		_, err := tx.Conflict("nope")
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a missing conflict: %v, want ErrNotFound", err)
	}
}

// Two writers decide one conflict at once, each from version 1, each
// ticking the clock: exactly one wins; the other finds it stale and
// writes nothing.
func testRacingUpdates(t *testing.T, e Engine) {
	st, name := field(t, e)
	pair(t, st, model.StatusDetected)
	var base int64
	read(t, st, func(tx store.Tx) (err error) { base, err = tx.Epoch(); return err })
	other := e.Open(t, name, store.Options{})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := make(chan struct{})
	for i, f := range []store.Field{st, other} {
		wg.Go(func() {
			<-start
			errs[i] = f.Write(context.Background(), func(tx store.Tx) error {
				c, err := tx.Conflict("c1")
				if err != nil {
					return err
				}
				if c.Version != 1 {
					return store.ErrStale // the other decided first; a rule would refuse
				}
				epoch, err := tx.EpochTick()
				if err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond) // let the other writer arrive
				c.Status = model.StatusResolved
				c.Resolution = &model.Resolution{Strategy: model.Dismiss, Rationale: "writer", ResolvedBy: []string{"a1", "a2"}[i],
					EpochResolved: epoch, ResolvedAt: now()}
				return tx.ConflictUpdate(c, 1)
			})
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !store.IsStale(err):
			t.Fatalf("a racing writer failed with %v, want ErrStale or success", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d writers won, want exactly 1 (%v)", won, errs)
	}
	read(t, st, func(tx store.Tx) error {
		c, err := tx.Conflict("c1")
		if err != nil {
			return err
		}
		epoch, err := tx.Epoch()
		if c.Version != 2 || c.Resolution == nil || epoch != base+1 || c.Resolution.EpochResolved != epoch {
			t.Fatalf("after the race: version %d, resolution %+v, clock %d (from %d); want version 2 and one tick",
				c.Version, c.Resolution, epoch, base)
		}
		return err
	})
}

func testRollback(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusDetected)
	var before store.Summary
	read(t, st, func(tx store.Tx) (err error) { before, err = store.Digest(tx); return err })
	boom := errors.New("refused half way")
	err := st.Write(context.Background(), func(tx store.Tx) error {
		epoch, err := tx.EpochTick()
		if err != nil {
			return err
		}
		if _, err := tx.UnitInsert(unit("", epoch)); err != nil {
			return err
		}
		if err := tx.UnitSetStatus("u1", model.UnitSuperseded); err != nil {
			return err
		}
		if _, err := tx.NotificationInsert(model.Notification{AgentID: "a1", Event: "x", Epoch: epoch, Summary: "s", CreatedAt: now()}); err != nil {
			return err
		}
		if _, err := tx.EventAppend(model.Event{Epoch: epoch, Operation: "NOTE", AgentID: "a1", At: now()}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the write's own error", err)
	}
	var after store.Summary
	read(t, st, func(tx store.Tx) (err error) { after, err = store.Digest(tx); return err })
	if after != before {
		t.Fatalf("a refused write changed the field:\nbefore %v\nafter  %v", before, after)
	}
}

func testReadOnly(t *testing.T, e Engine) {
	st, name := field(t, e)
	ro := e.Open(t, name, store.Options{ReadOnly: true})
	if !ro.ReadOnly() {
		t.Fatal("a field opened read-only says it is not")
	}
	err := ro.Write(context.Background(), func(tx store.Tx) error { _, err := tx.EpochTick(); return err })
	if !model.HasCode(err, model.CodeReadOnly) {
		t.Fatalf("a write to a read-only field: %v, want READ_ONLY", err)
	}
	read(t, ro, func(tx store.Tx) error {
		a, err := tx.Agent("a1")
		if err != nil || a.Role != "r" {
			t.Fatalf("reading a read-only field: %+v, %v", a, err)
		}
		return err
	})
	_ = st
}

func testUnitsRoundTrip(t *testing.T, e Engine) {
	st, _ := field(t, e)
	task, q, session := "task-7", "why?", "s-1"
	score := 0.25
	want := model.Unit{ID: "u9", Mode: model.ModeDraft, Type: model.TypeAssumption, Content: "Ünïcode **text**\nsecond line",
		Intent:     model.Intent{Purpose: "p", TaskID: &task, Question: &q},
		Confidence: model.Confidence{Score: &score, Reasoning: "because", Evidence: []string{"e1", "e2"}, Assumptions: []string{"a"}},
		Source:     model.Source{AgentID: "a1", AgentRole: "r", SessionID: &session, Timestamp: now()},
		Relations:  []model.Relation{{Type: model.RelSupports, TargetID: "t2", Description: "d"}, {Type: model.RelElaborates, TargetID: "t1"}},
		Status:     model.UnitDraft, Epoch: 7}
	bare := unit("u10", 8)
	bare.Confidence = model.Confidence{}
	write(t, st, func(tx store.Tx) error {
		for _, u := range []model.Unit{unit("t1", 1), unit("t2", 1), want, bare} {
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Unit("u9")
		if err != nil {
			return err
		}
		// Relations come back by type, then target.
		want.Relations = []model.Relation{want.Relations[1], want.Relations[0]}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("unit\n%+v\nwant\n%+v", got, want)
		}
		got, err = tx.Unit("u10")
		if err != nil || got.Confidence.Score != nil || got.Confidence.Evidence == nil && len(got.Confidence.Evidence) != 0 {
			t.Errorf("a unit without confidence: %+v, %v", got.Confidence, err)
		}
		if ok, err := tx.UnitExists("u9"); !ok || err != nil {
			t.Errorf("UnitExists(u9) = %v, %v", ok, err)
		}
		if ok, err := tx.UnitExists("nope"); ok || err != nil {
			t.Errorf("UnitExists(nope) = %v, %v", ok, err)
		}
		if _, err := tx.Unit("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Unit(nope): %v, want ErrNotFound", err)
		}
		return nil
	})
	err := st.Write(context.Background(), func(tx store.Tx) error { return tx.UnitSetStatus("nope", model.UnitActive) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UnitSetStatus(nope): %v, want ErrNotFound", err)
	}
}

func testSupporters(t *testing.T, e Engine) {
	st, _ := field(t, e)
	supports := model.Relation{Type: model.RelSupports, TargetID: "t"}
	write(t, st, func(tx store.Tx) error {
		tx.UnitInsert(unit("t", 1))
		for _, id := range []string{"s1", "s2", "s3", "s4"} {
			if _, err := tx.UnitInsert(unit(id, 2, supports)); err != nil {
				return err
			}
		}
		if _, err := tx.UnitInsert(unit("e1", 3, model.Relation{Type: model.RelElaborates, TargetID: "t"})); err != nil {
			return err
		}
		if err := tx.UnitSetStatus("s2", model.UnitSuperseded); err != nil {
			return err
		}
		if err := tx.UnitSetStatus("s3", model.UnitRetracted); err != nil {
			return err
		}
		return tx.UnitSetStatus("s4", model.UnitContested)
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Supporters("t")
		if want := []string{"s1", "s4"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("supporters %q, want %q", got, want)
		}
		return err
	})
}

func testRelations(t *testing.T, e Engine) {
	st, _ := field(t, e)
	write(t, st, func(tx store.Tx) error {
		for _, u := range []model.Unit{
			unit("old", 1), unit("older", 1),
			unit("new", 2, model.Relation{Type: model.RelSupersedes, TargetID: "old"},
				model.Relation{Type: model.RelSupersedes, TargetID: "older"},
				model.Relation{Type: model.RelSupersedes, TargetID: "not-in-the-field"},
				model.Relation{Type: model.RelInforms, TargetID: "old", Description: "see"}),
			unit("B", 3, model.Relation{Type: model.RelSupports, TargetID: "old"}),
		} {
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Supersedes("new")
		if want := []string{"old", "older"}; !reflect.DeepEqual(got, want) || err != nil {
			t.Errorf("supersedes %q (%v), want %q", got, err, want)
		}
		if got, err := tx.Supersedes("old"); len(got) != 0 || err != nil {
			t.Errorf("supersedes of a unit with none: %q (%v)", got, err)
		}
		links, err := tx.RelationsTo("old")
		want := []model.Link{{From: "new", Type: model.RelInforms, Description: "see"}, {From: "new", Type: model.RelSupersedes},
			{From: "B", Type: model.RelSupports}}
		if !reflect.DeepEqual(links, want) {
			t.Errorf("relations to old %+v, want %+v", links, want)
		}
		return err
	})
}

func testCountUnits(t *testing.T, e Engine) {
	st, _ := field(t, e)
	write(t, st, func(tx store.Tx) error {
		for i, s := range []model.UnitStatus{model.UnitActive, model.UnitActive, model.UnitContested, model.UnitSuperseded} {
			u := unit("", int64(i+1))
			u.Status = s
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		for _, tc := range []struct {
			statuses []model.UnitStatus
			want     int64
		}{{nil, 4}, {[]model.UnitStatus{model.UnitActive}, 2}, {[]model.UnitStatus{model.UnitContested, model.UnitSuperseded}, 2},
			{[]model.UnitStatus{model.UnitRetracted}, 0}} {
			if n, err := tx.UnitCount(tc.statuses...); n != tc.want || err != nil {
				t.Errorf("UnitCount(%v) = %d (%v), want %d", tc.statuses, n, err, tc.want)
			}
		}
		return nil
	})
}

func testAgents(t *testing.T, e Engine) {
	st, _ := field(t, e)
	at := now()
	maya := model.Agent{ID: "maya", Role: "operator", Kind: model.KindHuman, Authority: 10, Status: model.AgentIdle,
		RegisteredAt: at, DBRole: e.Role}
	write(t, st, func(tx store.Tx) error { return tx.AgentInsert(maya, 9) })
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Agent("maya")
		if !reflect.DeepEqual(got, maya) || err != nil {
			t.Errorf("agent %+v (%v), want %+v", got, err, maya)
		}
		all, err := tx.Agents()
		var ids []string
		for _, a := range all {
			ids = append(ids, a.ID)
		}
		if want := []string{"a1", "a2", "maya"}; !reflect.DeepEqual(ids, want) || err != nil {
			t.Errorf("agents %q (%v), want %q", ids, err, want)
		}
		if _, err := tx.Agent("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Agent(nope): %v, want ErrNotFound", err)
		}
		return nil
	})
}

func testPolicy(t *testing.T, e Engine) {
	st, _ := field(t, e)
	want := model.Policy{Level: 2, Quorum: 5, Tie: model.TieStay, VoterMinAuthority: 4,
		VoterRoles:     []string{"lead", "senior"},
		AuthorityRoles: map[model.ConflictType]string{model.ConflictFactual: "lead", model.ConflictPriority: "pm"},
		Recusal:        true, OperatorOverride: true,
		Owners: map[model.ConflictType]string{model.ConflictStrategic: "maya"}, OwnersDecide: true,
		EscalationTimeout: 4 * time.Hour, EscalationFallback: "escalate:raf", VoteMinBallots: 2,
		DetectionSensitivity: model.SensitivityHigh}
	write(t, st, func(tx store.Tx) error { return tx.PolicySet(want) })
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Policy()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("policy %+v, want %+v", got, want)
		}
		return err
	})
	// Replacing it drops the maps' old entries.
	want.AuthorityRoles, want.Owners, want.VoterRoles = map[model.ConflictType]string{}, map[model.ConflictType]string{}, []string{}
	write(t, st, func(tx store.Tx) error { return tx.PolicySet(want) })
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Policy()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("policy %+v, want %+v", got, want)
		}
		return err
	})
}

// Every column of a conflict comes back as written: steps, route,
// proposal, resolution, rework.
func testConflictRoundTrip(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusDetected)
	at := now()
	deadline := at.Add(4 * time.Hour)
	winner, synth := "u1", "both"
	want := model.Conflict{ID: "c2", Type: model.ConflictStrategic, Status: model.StatusResolved, UnitA: "u2", UnitB: "u1",
		Description: "why they differ", DetectedBy: model.DetectedSemantic, DetectedAt: at, Epoch: 4, Version: 1,
		Escalation: &model.Escalation{By: "a1", Reason: "people", Epoch: 5, At: at.Add(time.Second)},
		VoteOpened: &model.Escalation{By: "a2", Reason: "leads", Epoch: 6, At: at.Add(2 * time.Second)},
		Rework:     &model.Escalation{By: "a2", Reason: "again", Epoch: 7, At: at.Add(3 * time.Second)},
		Route:      &model.Route{Owner: "a2", Since: at, Deadline: &deadline, Fallback: "escalate", Reminded: 1},
		Proposal:   &model.Proposal{By: "a1", WinnerID: &winner, Synthesis: &synth},
		ReworkOf:   "c1",
		Resolution: &model.Resolution{Strategy: model.ConfidenceWeighted, WinnerID: &winner, Rationale: "surer",
			ResolvedBy: "a2", EpochResolved: 8, ResolvedAt: at.Add(4 * time.Second)},
		Detection: &model.Detection{Signal: model.SignalQuantity, Score: 0.82, Sensitivity: model.SensitivityMedium,
			PhraseA: model.Phrase{Start: 4, End: 9, Text: "40 ms"}, PhraseB: model.Phrase{Start: 10, End: 15, Text: "90 ms"},
			Values: []string{"40 ms", "90 ms"}}}
	write(t, st, func(tx store.Tx) error { _, err := tx.ConflictInsert(want); return err })
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Conflict("c2")
		if !reflect.DeepEqual(got, want) || err != nil {
			t.Fatalf("conflict\n%+v (%v)\nwant\n%+v", got, err, want)
		}
		for _, pairs := range [][2]string{{"u1", "u2"}, {"u2", "u1"}} {
			c, err := tx.ConflictByPair(pairs[0], pairs[1])
			if err != nil || c.ID != "c1" {
				t.Errorf("ConflictByPair(%s, %s) = %s (%v), want the oldest, c1", pairs[0], pairs[1], c.ID, err)
			}
		}
		cs, err := tx.ConflictsOfUnit("u2")
		if len(cs) != 2 || err != nil {
			t.Errorf("ConflictsOfUnit(u2): %d conflicts (%v), want 2", len(cs), err)
		}
		return nil
	})
	// An update writes every mutable column back, the version grows.
	changed := want
	changed.Status, changed.Escalation, changed.Route, changed.Proposal, changed.Rework = model.StatusEscalated,
		&model.Escalation{By: "a2", Reason: "again", Epoch: 9, At: at}, nil, nil, nil
	changed.Resolution = nil
	write(t, st, func(tx store.Tx) error { return tx.ConflictUpdate(changed, 1) })
	changed.Version = 2
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Conflict("c2")
		if !reflect.DeepEqual(got, changed) || err != nil {
			t.Fatalf("after the update\n%+v (%v)\nwant\n%+v", got, err, changed)
		}
		return nil
	})
}

func testBallots(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusPendingVote)
	at := now()
	write(t, st, func(tx store.Tx) error {
		if err := tx.BallotPut(model.Ballot{ConflictID: "c1", VoterID: "a1", Choice: "u1", Rationale: "first", Epoch: 3, CastAt: at}); err != nil {
			return err
		}
		return tx.BallotPut(model.Ballot{ConflictID: "c1", VoterID: "a1", Choice: "u2", Rationale: "second", Epoch: 4, CastAt: at})
	})
	read(t, st, func(tx store.Tx) error {
		b, err := tx.Ballots("c1")
		want := []model.Ballot{{ConflictID: "c1", VoterID: "a1", Choice: "u2", Rationale: "second", Epoch: 4, CastAt: at}}
		if !reflect.DeepEqual(b, want) {
			t.Fatalf("ballots %+v, want %+v", b, want)
		}
		return err
	})
	write(t, st, func(tx store.Tx) error { return tx.BallotClear("c1") })
	read(t, st, func(tx store.Tx) error {
		b, err := tx.Ballots("c1")
		if len(b) != 0 || b == nil {
			t.Fatalf("ballots %+v after clearing, want an empty list", b)
		}
		return err
	})
}

func testVotedOn(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusPendingVote)
	write(t, st, func(tx store.Tx) error {
		return tx.BallotPut(model.Ballot{ConflictID: "c1", VoterID: "a2", Choice: "u1", Rationale: "r", Epoch: 4, CastAt: now()})
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.BallotsOfVoter("a2")
		if !reflect.DeepEqual(got, map[string]bool{"c1": true}) {
			t.Errorf("a2 voted on %v, want c1", got)
		}
		if got, _ := tx.BallotsOfVoter("a1"); len(got) != 0 {
			t.Errorf("a1 voted on %v, want none", got)
		}
		return err
	})
}

// Writers on separate connections, at once, each storing a unit, a
// notification and an event: every write goes through, no id is given
// twice, and the outbox read whole or page after page gives every
// notification once, in the same order.
func testConcurrentIDs(t *testing.T, e Engine) {
	st, name := field(t, e)
	write(t, st, func(tx store.Tx) error { _, err := tx.UnitInsert(unit("mem-001", 1)); return err })
	const writers, each = 4, 15
	type got struct{ epoch, note, event int64 }
	results := make(chan got, writers*each)
	var wg sync.WaitGroup
	for w := range writers {
		f := e.Open(t, name, store.Options{})
		wg.Go(func() {
			for i := range each {
				var g got
				err := f.Write(context.Background(), func(tx store.Tx) error {
					if i%2 == 0 { // some writes lock a unit first, as RECORD does
						if _, err := tx.UnitExists("mem-001"); err != nil {
							return err
						}
					}
					epoch, err := tx.EpochTick()
					if err != nil {
						return err
					}
					if _, err := tx.UnitInsert(unit("", epoch)); err != nil {
						return err
					}
					n, err := tx.NotificationInsert(model.Notification{AgentID: "a1", Event: "e", Epoch: epoch, Summary: fmt.Sprint(w), CreatedAt: now()})
					if err != nil {
						return err
					}
					ev, err := tx.EventAppend(model.Event{Epoch: epoch, Operation: "NOTE", AgentID: "a1", At: now()})
					g = got{epoch, n, ev}
					return err
				})
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				results <- g
			}
		})
	}
	wg.Wait()
	close(results)
	notes, events := map[int64]bool{}, map[int64]bool{}
	for r := range results {
		if notes[r.note] || events[r.event] {
			t.Fatalf("an id given twice: %+v", r)
		}
		notes[r.note], events[r.event] = true, true
	}
	var whole, paged []int64
	read(t, st, func(tx store.Tx) error {
		all, err := tx.Inbox("a1", 0, 0)
		for _, n := range all {
			whole = append(whole, n.ID)
		}
		return err
	})
	for since := int64(0); ; {
		var page []model.Notification
		read(t, st, func(tx store.Tx) (err error) { page, err = tx.Inbox("a1", since, 7); return err })
		for _, n := range page {
			paged = append(paged, n.ID)
		}
		if len(page) < 7 {
			break
		}
		since = page[len(page)-1].ID
	}
	if len(whole) != writers*each || !slices.Equal(whole, paged) {
		t.Fatalf("the outbox whole %v, page after page %v; want the %d notifications in one order", whole, paged, writers*each)
	}
	for _, id := range whole {
		if !notes[id] {
			t.Fatalf("the outbox holds %d, which no write gave", id)
		}
	}
	read(t, st, func(tx store.Tx) error {
		n, err := tx.UnitCount()
		if n != writers*each+1 {
			t.Errorf("%d units, want %d", n, writers*each+1)
		}
		return err
	})
}
