package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/sqlite"
)

// newStore creates an empty field with one agent, "a1".
func newStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Create(context.Background(), filepath.Join(t.TempDir(), "field.db"), model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	write(t, st, func(tx store.Tx) error {
		return tx.InsertAgent(model.Agent{ID: "a1", Role: "r", Kind: model.KindAgent, Authority: 6,
			Status: model.AgentIdle, RegisteredAt: time.Now()}, 1)
	})
	return st
}

func write(t *testing.T, st *sqlite.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := st.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, st *sqlite.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := st.Read(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func unit(id string, epoch int64, rels ...model.Relation) model.Unit {
	score := 0.5
	return model.Unit{ID: id, Mode: model.ModeCommitted, Type: model.TypeFinding, Content: "c",
		Intent: model.Intent{Purpose: "p"}, Confidence: model.Confidence{Score: &score, Reasoning: "r"},
		Source: model.Source{AgentID: "a1", AgentRole: "r", Timestamp: time.Now()}, Relations: rels,
		Status: model.UnitActive, Epoch: epoch}
}

func TestClockTicksAndWitnesses(t *testing.T) {
	st := newStore(t)
	write(t, st, func(tx store.Tx) error {
		for _, step := range []struct {
			do   func() (int64, error)
			want int64
		}{
			{tx.Tick, 1},
			{tx.Tick, 2},
			{func() (int64, error) { return tx.Witness(10) }, 11}, // max(2, 10) + 1
			{func() (int64, error) { return tx.Witness(3) }, 12},  // max(11, 3) + 1
		} {
			got, err := step.do()
			if err != nil || got != step.want {
				t.Fatalf("clock %d (%v), want %d", got, err, step.want)
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		if e, err := tx.Epoch(); err != nil || e != 12 {
			t.Fatalf("epoch %d (%v) after commit, want 12", e, err)
		}
		return nil
	})
}

func TestIDsAreSequentialAndImportedOnesKept(t *testing.T) {
	st := newStore(t)
	var ids []string
	write(t, st, func(tx store.Tx) error {
		for _, id := range []string{"", "", "ext-01HZX", ""} {
			got, err := tx.InsertUnit(unit(id, 1))
			if err != nil {
				return err
			}
			ids = append(ids, got)
		}
		c, err := tx.InsertConflict(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: ids[0], UnitB: ids[1], DetectedBy: model.DetectedExplicit, Epoch: 1})
		ids = append(ids, c)
		return err
	})
	want := []string{"mem-001", "mem-002", "ext-01HZX", "mem-004", "conflict-001"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
}

func TestUpdateConflictStaleWritesNothing(t *testing.T) {
	st := newStore(t)
	var c model.Conflict
	write(t, st, func(tx store.Tx) error {
		tx.InsertUnit(unit("u1", 1))
		tx.InsertUnit(unit("u2", 2))
		id, err := tx.InsertConflict(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: "u1", UnitB: "u2", DetectedBy: model.DetectedExplicit, Epoch: 2})
		c.ID = id
		return err
	})
	read(t, st, func(tx store.Tx) (err error) { c, err = tx.Conflict(c.ID); return err })
	if c.Version != 1 {
		t.Fatalf("a new conflict is at version %d, want 1", c.Version)
	}
	esc := c
	esc.Status = model.StatusEscalated
	esc.Escalation = &model.Escalation{By: "a1", Reason: "why", Epoch: 3, At: time.Now()}
	write(t, st, func(tx store.Tx) error { return tx.UpdateConflict(esc, 1) })

	dismissed := c
	dismissed.Status = model.StatusResolved
	dismissed.Resolution = &model.Resolution{Strategy: model.Dismiss, Rationale: "r", ResolvedBy: "a1", EpochResolved: 4}
	err := st.Write(context.Background(), func(tx store.Tx) error { return tx.UpdateConflict(dismissed, 1) })
	if !store.IsStale(err) {
		t.Fatalf("update at an old version: %v, want ErrStale", err)
	}
	read(t, st, func(tx store.Tx) (err error) { c, err = tx.Conflict(c.ID); return err })
	if c.Version != 2 || c.Status != model.StatusEscalated || c.Resolution != nil || c.Escalation.Reason != "why" {
		t.Fatalf("after a stale update the conflict is %+v, want escalated at version 2", c)
	}
}

func TestSupportersAreLiveUnitsOnly(t *testing.T) {
	st := newStore(t)
	supports := model.Relation{Type: model.RelSupports, TargetID: "t"}
	write(t, st, func(tx store.Tx) error {
		tx.InsertUnit(unit("t", 1))
		for _, id := range []string{"s1", "s2", "s3", "s4"} {
			if _, err := tx.InsertUnit(unit(id, 2, supports)); err != nil {
				return err
			}
		}
		tx.InsertUnit(unit("e1", 3, model.Relation{Type: model.RelElaborates, TargetID: "t"}))
		tx.SetUnitStatus("s2", model.UnitSuperseded)
		tx.SetUnitStatus("s3", model.UnitRetracted)
		return tx.SetUnitStatus("s4", model.UnitContested)
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Supporters("t")
		if want := []string{"s1", "s4"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("supporters %q, want %q", got, want)
		}
		return err
	})
}

func TestPutBallotReplacesTheVotersBallot(t *testing.T) {
	st := newStore(t)
	write(t, st, func(tx store.Tx) error {
		tx.InsertUnit(unit("u1", 1))
		tx.InsertUnit(unit("u2", 2))
		if _, err := tx.InsertConflict(model.Conflict{ID: "c1", Type: model.ConflictFactual, Status: model.StatusPendingVote,
			UnitA: "u1", UnitB: "u2", DetectedBy: model.DetectedExplicit, Epoch: 2}); err != nil {
			return err
		}
		if err := tx.PutBallot(model.Ballot{ConflictID: "c1", VoterID: "a1", Choice: "u1", Rationale: "first", Epoch: 3}); err != nil {
			return err
		}
		return tx.PutBallot(model.Ballot{ConflictID: "c1", VoterID: "a1", Choice: "u2", Rationale: "second", Epoch: 4})
	})
	read(t, st, func(tx store.Tx) error {
		b, err := tx.Ballots("c1")
		if len(b) != 1 || b[0].Choice != "u2" || b[0].Rationale != "second" || b[0].Epoch != 4 {
			t.Fatalf("ballots %+v, want a1's second ballot only", b)
		}
		return err
	})
	write(t, st, func(tx store.Tx) error { return tx.ClearBallots("c1") })
	read(t, st, func(tx store.Tx) error {
		b, err := tx.Ballots("c1")
		if len(b) != 0 {
			t.Fatalf("ballots %+v after clearing", b)
		}
		return err
	})
}

func TestPolicyRoundTrips(t *testing.T) {
	st := newStore(t)
	want := model.Policy{Level: 2, Quorum: 5, Tie: model.TieStay, VoterMinAuthority: 4,
		VoterRoles:     []string{"lead", "senior"},
		AuthorityRoles: map[model.ConflictType]string{model.ConflictFactual: "lead", model.ConflictPriority: "pm"},
		Recusal:        true, OperatorOverride: true,
		Owners: map[model.ConflictType]string{model.ConflictStrategic: "maya"}, OwnersDecide: true,
		EscalationTimeout: 4 * time.Hour, EscalationFallback: "escalate:raf", VoteMinBallots: 2}
	write(t, st, func(tx store.Tx) error { return tx.SetPolicy(want) })
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Policy()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("policy %+v, want %+v", got, want)
		}
		return err
	})
}

// TestSchemaRefusesInconsistentRows pins the checks docs/field-format.md
// promises to other writers.
func TestSchemaRefusesInconsistentRows(t *testing.T) {
	st := newStore(t)
	write(t, st, func(tx store.Tx) error {
		tx.InsertUnit(unit("u1", 1))
		_, err := tx.InsertUnit(unit("u2", 2))
		return err
	})
	db, err := sql.Open("sqlite", "file:"+st.Path()+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO events (epoch, operation, agent_id, at) VALUES (1, 'NOTE', 'a1', '2026-01-01T00:00:00.000000000Z')`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, sql, want string }{
		{"a conflict of a unit with itself", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'detected', 'u1', 'u1', 'explicit', 'x', 1)`, "CHECK"},
		{"resolved without a strategy", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'resolved', 'u1', 'u2', 'explicit', 'x', 1)`, "CHECK"},
		{"a strategy on an open conflict", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch, strategy)
			VALUES ('c9', 'factual', 'detected', 'u1', 'u2', 'explicit', 'x', 1, 'dismiss')`, "CHECK"},
		{"a conflict about a missing unit", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'detected', 'u1', 'nope', 'explicit', 'x', 1)`, "FOREIGN KEY"},
		{"a unit by an unregistered agent", `INSERT INTO units (id, mode, type, content, intent_purpose, agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u9', 'draft', 'finding', 'c', 'p', 'ghost', 'r', 'x', 'draft', 1)`, "FOREIGN KEY"},
		{"an empty purpose", `INSERT INTO units (id, mode, type, content, intent_purpose, agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u9', 'draft', 'finding', 'c', '', 'a1', 'r', 'x', 'draft', 1)`, "CHECK"},
		{"a score above 1", `INSERT INTO units (id, mode, type, content, intent_purpose, confidence_score, agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u9', 'draft', 'finding', 'c', 'p', 1.5, 'a1', 'r', 'x', 'draft', 1)`, "CHECK"},
		{"changing the log", `UPDATE events SET operation = 'FORGED'`, "append-only"},
		{"deleting from the log", `DELETE FROM events`, "append-only"},
		{"a second clock", `INSERT INTO clock (id, epoch) VALUES (2, 0)`, "CHECK"},
	} {
		if _, err := db.Exec(tc.sql); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a %s failure", tc.name, err, tc.want)
		}
	}
}
