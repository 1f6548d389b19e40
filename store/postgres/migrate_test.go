package postgres

import (
	"context"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/store"
)

// A field of format 1 (one clock row every write held) opens as format
// 2: its epoch, sequence numbers and ids go on from where they were, its
// counts stay, and a role that could read its log may read its ticks.
func TestAFieldOfFormat1GoesOnInFormat2(t *testing.T) {
	ctx := context.Background()
	schema, name := pgtest.Schema(t)
	reader, _ := pgtest.Role(t, name, "reader")
	pgtest.Exec(t, pgtest.URL(t), `CREATE SCHEMA `+schema)
	if err := pgtest.ExecIn(ctx, name, migrations[0]+`
		UPDATE field_format SET version = 1;
		UPDATE clock SET epoch = 41;
		INSERT INTO policy (id, level, quorum, tie, voter_min_authority) VALUES (1, 3, 2, 'stay', 6);
		INSERT INTO agents (id, role, kind, authority, registered_at, epoch) VALUES ('a1', 'r', 'agent', 6, now(), 1);
		INSERT INTO units (seq, id, mode, type, content, intent_purpose, agent_id, agent_role, recorded_at, status, epoch)
			VALUES (7, 'mem-007', 'committed', 'finding', 'x', 'p', 'a1', 'r', now(), 'contested', 2),
			       (8, 'mem-008', 'committed', 'finding', 'y', 'p', 'a1', 'r', now(), 'contested', 3);
		INSERT INTO conflicts (seq, id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES (5, 'conflict-005', 'factual', 'detected', 'mem-007', 'mem-008', 'explicit', now(), 3);
		INSERT INTO notifications (id, agent_id, event, epoch, summary, created_at) VALUES (30, 'a1', 'e', 3, 's', now());
		INSERT INTO events (id, epoch, operation, agent_id, at) VALUES (50, 3, 'RECORD', 'a1', now());
		GRANT USAGE ON SCHEMA `+schema+` TO `+reader+`;
		GRANT SELECT ON ALL TABLES IN SCHEMA `+schema+` TO `+reader); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, name, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var unit, conflict string
	var note, event, epoch int64
	var counts map[model.ConflictStatus]int
	err = st.Write(ctx, func(tx store.Tx) (err error) {
		if epoch, err = tx.EpochTick(); err != nil {
			return err
		}
		if unit, err = tx.UnitInsert(model.Unit{Mode: model.ModeCommitted, Type: model.TypeFinding, Content: "z",
			Intent: model.Intent{Purpose: "p"}, Source: model.Source{AgentID: "a1", AgentRole: "r", Timestamp: time.Now()},
			Status: model.UnitActive, Epoch: epoch}); err != nil {
			return err
		}
		if conflict, err = tx.ConflictInsert(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: "mem-007", UnitB: unit, DetectedBy: model.DetectedExplicit, DetectedAt: time.Now(), Epoch: epoch}); err != nil {
			return err
		}
		if note, err = tx.NotificationInsert(model.Notification{AgentID: "a1", Event: "e", Epoch: epoch, Summary: "s", CreatedAt: time.Now()}); err != nil {
			return err
		}
		event, err = tx.EventAppend(model.Event{Epoch: epoch, Operation: "NOTE", AgentID: "a1", At: time.Now()})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if epoch != 42 || unit != "mem-009" || conflict != "conflict-006" || note != 31 || event != 51 {
		t.Fatalf("epoch %d, unit %s, conflict %s, notification %d, event %d; want 42, mem-009, conflict-006, 31, 51",
			epoch, unit, conflict, note, event)
	}
	err = st.Read(ctx, func(tx store.Tx) (err error) {
		counts, err = tx.ConflictCount()
		return err
	})
	if err != nil || counts[model.StatusDetected] != 2 {
		t.Fatalf("counts %v (%v), want 2 detected", counts, err)
	}
	var can bool
	if err := st.pool.QueryRow(ctx, `SELECT has_table_privilege($1, $2, 'SELECT')`, reader, schema+".ticks").Scan(&can); err != nil || !can {
		t.Fatalf("the log's reader may read the ticks: %v (%v)", can, err)
	}
}
