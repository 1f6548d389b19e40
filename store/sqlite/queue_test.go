package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// queueField is a field with agents a1 (role r1) and a2 (role r2), units
// u1 by a1 and u2 by a2, and conflict c1 between them, pending a vote.
func queueField(t *testing.T, path string) *Store {
	t.Helper()
	ctx := context.Background()
	st, err := Create(ctx, path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	err = st.Write(ctx, func(tx store.Tx) error {
		for _, a := range []model.Agent{{ID: "a1", Role: "r1"}, {ID: "a2", Role: "r2"}} {
			a.Kind, a.Authority, a.Status, a.RegisteredAt = model.KindAgent, 6, model.AgentIdle, time.Now()
			if err := tx.AgentInsert(a, 1); err != nil {
				return err
			}
		}
		for i, id := range []string{"u1", "u2"} {
			agent, role := []string{"a1", "a2"}[i], []string{"r1", "r2"}[i]
			u := model.Unit{ID: id, Mode: model.ModeCommitted, Type: model.TypeFinding, Content: "c",
				Intent: model.Intent{Purpose: "p"}, Source: model.Source{AgentID: agent, AgentRole: role, Timestamp: time.Now()},
				Status: model.UnitActive, Epoch: int64(i + 1)}
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		_, err := tx.ConflictInsert(model.Conflict{ID: "c1", Type: model.ConflictFactual, Status: model.StatusPendingVote,
			UnitA: "u1", UnitB: "u2", DetectedBy: model.DetectedExplicit, Epoch: 3})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// listedRow is c1 as the review queue lists it.
func listedRow(t *testing.T, st *Store) model.ConflictSummary {
	t.Helper()
	var rows []model.ConflictSummary
	err := st.Read(context.Background(), func(tx store.Tx) (err error) {
		rows, err = tx.ConflictList(model.ListQuery{Statuses: model.ReviewStatuses})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != "c1" {
		t.Fatalf("queue %+v, want c1 alone", rows)
	}
	return rows[0]
}

func wantRow(t *testing.T, got model.ConflictSummary, forA, forB int) {
	t.Helper()
	if got.AgentA != "a1" || got.RoleA != "r1" || got.AgentB != "a2" || got.RoleB != "r2" {
		t.Errorf("authors %s (%s) vs %s (%s), want a1 (r1) vs a2 (r2)", got.AgentA, got.RoleA, got.AgentB, got.RoleB)
	}
	if got.Tally == nil || got.Tally.ForA != forA || got.Tally.ForB != forB {
		t.Errorf("tally %+v, want %d for A and %d for B", got.Tally, forA, forB)
	}
}

// A field of format 2 gains the queue's columns, filled, when it opens.
func TestMigrationFillsTheQueueColumns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "field.db")
	// A field of format 2, written as that format's arbiter wrote it.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(slices.Clone(migrations[:2]), fmt.Sprintf("PRAGMA application_id = %d", ApplicationID), "PRAGMA user_version = 2",
		`INSERT INTO policy (id, level, quorum, tie, voter_min_authority) VALUES (1, 3, 3, 'escalate', 6)`,
		`INSERT INTO agents (id, role, kind, authority, status, registered_at, epoch) VALUES
			('a1', 'r1', 'agent', 6, 'idle', '2026-01-01T00:00:00Z', 1), ('a2', 'r2', 'agent', 6, 'idle', '2026-01-01T00:00:00Z', 1)`,
		`INSERT INTO units (seq, id, mode, type, content, intent_purpose, confidence_evidence, confidence_assumptions,
			agent_id, agent_role, recorded_at, status, epoch) VALUES
			(1, 'u1', 'committed', 'finding', 'c', 'p', '[]', '[]', 'a1', 'r1', '2026-01-01T00:00:00Z', 'active', 1),
			(2, 'u2', 'committed', 'finding', 'c', 'p', '[]', '[]', 'a2', 'r2', '2026-01-01T00:00:00Z', 'active', 2)`,
		`INSERT INTO conflicts (seq, id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES (1, 'c1', 'factual', 'pending_vote', 'u1', 'u2', 'explicit', '2026-01-01T00:00:00Z', 3)`,
		`INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at) VALUES ('c1', 'a2', 'u2', 'why', 4, '2026-01-01T00:00:00Z')`,
	) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	if err := st.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil || v != Version {
		t.Fatalf("format %d (%v), want %d", v, err, Version)
	}
	wantRow(t, listedRow(t, st), 0, 1)
	var counts map[model.ConflictStatus]int
	if err := st.Read(ctx, func(tx store.Tx) (err error) { counts, err = tx.ConflictCount(); return err }); err != nil {
		t.Fatal(err)
	}
	if counts[model.StatusPendingVote] != 1 || counts[model.StatusResolved] != 0 {
		t.Errorf("counts after the upgrade %v, want one pending vote", counts)
	}
}

// The packed queue rows read back exactly what the columns hold, whatever
// the text: lengths, colons, dashes, NUL, invalid UTF-8, empty and NULL.
func TestPackedRowsReadWhatTheColumnsHold(t *testing.T) {
	ctx := context.Background()
	st := queueField(t, filepath.Join(t.TempDir(), "field.db"))
	defer st.Close()
	texts := []string{"", "-", "12:ab", "3:x-", "é ü 日本", "nul \x00 inside", "bad \xff utf8", ":", "-:-", "9999999999:"}
	err := st.Write(ctx, func(tx store.Tx) error {
		for i, text := range texts {
			c := model.Conflict{Type: model.ConflictPriority, Status: model.StatusEscalated, UnitA: "u2", UnitB: "u1",
				Description: text, DetectedBy: model.DetectedSemantic, Epoch: int64(10 + i), DetectedAt: time.Unix(int64(i), 5).UTC(),
				Escalation: &model.Escalation{By: text, Reason: text + text, Epoch: int64(i), At: time.Unix(1e9, 0).UTC()}}
			if i%2 == 1 {
				c.Status, c.Escalation = model.StatusPendingVote, nil
				c.VoteOpened = &model.Escalation{By: "a1", Reason: text, Epoch: -int64(i)}
			}
			if _, err := tx.ConflictInsert(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var packed, plain []model.ConflictSummary
	err = st.Read(ctx, func(tx store.Tx) (err error) {
		if packed, err = tx.ConflictList(model.ListQuery{Statuses: model.ReviewStatuses}); err != nil {
			return err
		}
		plain, err = tx.ConflictList(model.ListQuery{}) // every status: read column by column
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(packed) != len(texts)+1 || len(plain) != len(packed) {
		t.Fatalf("%d packed rows and %d plain, want %d", len(packed), len(plain), len(texts)+1)
	}
	for i := range packed {
		if !reflect.DeepEqual(packed[i], plain[i]) {
			t.Errorf("row %d packed:\n%+v\nplain:\n%+v", i, packed[i], plain[i])
		}
	}
	if got := packed[len(packed)-1].Description; got != texts[len(texts)-1] {
		t.Errorf("last description %q, want %q", got, texts[len(texts)-1])
	}
}

func TestPackedRowRefusesDamage(t *testing.T) {
	good := strings.Repeat("-", len(reviewCols)-2) + "1:21:3" + strings.Repeat("-", len(queueCols)-len(reviewCols))
	if _, forA, forB, err := scanPacked(good); err != nil || forA != 2 || forB != 3 {
		t.Fatalf("%q: %d and %d (%v), want 2 and 3", good, forA, forB, err)
	}
	for _, row := range []string{"", "1:a", good + "-", good[1:], strings.Replace(good, "1:2", "1:x", 1),
		strings.Replace(good, "1:2", "9:2", 1), strings.Replace(good, "1:2", "x:2", 1), "-1:" + good[2:]} {
		if s, _, _, err := scanPacked(row); err == nil {
			t.Errorf("%q read as %+v, want an error", row, s)
		}
	}
}
