package review_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store/field"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// recordBySQL is the recipe of docs/field-format.md ("Writing from another
// program"), run with plain SQL: a unit by agent that contradicts target.
// It returns the new unit's and conflict's ids.
func recordBySQL(t *testing.T, path, agent, role, target, content string) (string, string) {
	t.Helper()
	if field.IsServer(path) {
		return recordByPostgresSQL(t, path, agent, role, target, content)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin() // BEGIN IMMEDIATE
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z")
	must := func(_ sql.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var e, seq, cseq int64
	if err := tx.QueryRow(`UPDATE clock SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch`).Scan(&e); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(`SELECT coalesce(max(seq), 0) + 1 FROM units`).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("mem-%03d", seq)
	must(tx.Exec(`INSERT INTO units (seq, id, mode, type, content, intent_purpose, intent_task_id, intent_question,
			confidence_score, confidence_reasoning, confidence_evidence, confidence_assumptions,
			agent_id, agent_role, session_id, recorded_at, status, epoch)
		VALUES (:seq, :id, 'committed', 'finding', :content, :purpose, NULL, NULL,
			0.8, :reasoning, '[]', '[]', :agent, :role, NULL, :now, 'active', :e)`,
		sql.Named("seq", seq), sql.Named("id", id), sql.Named("content", content), sql.Named("purpose", "report"),
		sql.Named("reasoning", "measured"), sql.Named("agent", agent), sql.Named("role", role),
		sql.Named("now", now), sql.Named("e", e)))
	must(tx.Exec(`INSERT INTO relations (unit_id, type, target_id, description) VALUES (:id, 'contradicts', :target, '')`,
		sql.Named("id", id), sql.Named("target", target)))
	must(tx.Exec(`INSERT INTO events (epoch, operation, agent_id, unit_id, payload, at) VALUES (:e, 'RECORD', :agent, :id, '{}', :now)`,
		sql.Named("e", e), sql.Named("agent", agent), sql.Named("id", id), sql.Named("now", now)))
	if err := tx.QueryRow(`SELECT coalesce(max(seq), 0) + 1 FROM conflicts`).Scan(&cseq); err != nil {
		t.Fatal(err)
	}
	cid := fmt.Sprintf("conflict-%03d", cseq)
	must(tx.Exec(`INSERT INTO conflicts (seq, id, type, status, unit_a, unit_b, description, detected_by, detected_at, epoch, version)
		VALUES (:cseq, :cid, 'factual', 'detected', :target, :id, :description, 'explicit', :now, :e, 1)`,
		sql.Named("cseq", cseq), sql.Named("cid", cid), sql.Named("target", target), sql.Named("id", id),
		sql.Named("description", id+" contradicts "+target), sql.Named("now", now), sql.Named("e", e)))
	must(tx.Exec(`UPDATE units SET status = 'contested' WHERE id IN (:target, :id) AND status = 'active'`,
		sql.Named("target", target), sql.Named("id", id)))
	must(tx.Exec(`INSERT INTO events (epoch, operation, agent_id, conflict_id, unit_id, payload, at)
		VALUES (:e, 'DETECT', :agent, :cid, :id, '{}', :now)`,
		sql.Named("e", e), sql.Named("agent", agent), sql.Named("cid", cid), sql.Named("id", id), sql.Named("now", now)))
	must(tx.Exec(`INSERT INTO notifications (agent_id, event, epoch, relevance_score, summary, unit_id, conflict_id, requires_action, created_at)
		SELECT DISTINCT agent_id, 'conflict.detected', :e, 1, :summary, :id, :cid, 1, :now
		FROM units WHERE id IN (:target, :id)`,
		sql.Named("e", e), sql.Named("summary", cid+": a new contradiction"), sql.Named("id", id), sql.Named("cid", cid),
		sql.Named("now", now), sql.Named("target", target)))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return id, cid
}

// recordByPostgresSQL is the PostgreSQL recipe of docs/field-format.md,
// run with plain SQL.
func recordByPostgresSQL(t *testing.T, conn, agent, role, target, content string) (string, string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	must := func(_ pgconn.CommandTag, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	scan := func(dest any, q string, args ...any) {
		t.Helper()
		if err := tx.QueryRow(ctx, q, args...).Scan(dest); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var e, seq, cseq int64
	var actor string
	must(tx.Exec(ctx, `SELECT begin_write()`))
	scan(&actor, `SELECT set_config('arbiter.agent', $1, true)`, agent)
	must(tx.Exec(ctx, `SELECT 1 FROM units WHERE id = $1 FOR NO KEY UPDATE`, target))
	scan(&e, `SELECT tick(0, 0)`)
	scan(&seq, `SELECT next_number('units')`)
	id := fmt.Sprintf("mem-%03d", seq)
	must(tx.Exec(ctx, `INSERT INTO units (seq, id, mode, type, content, intent_purpose, intent_task_id, intent_question,
			confidence_score, confidence_reasoning, confidence_evidence, confidence_assumptions,
			agent_id, agent_role, session_id, recorded_at, status, epoch)
		VALUES ($1, $2, 'committed', 'finding', $3, 'report', NULL, NULL,
			0.8, 'measured', '[]', '[]', $4, $5, NULL, now(), 'active', $6)`, seq, id, content, agent, role, e))
	must(tx.Exec(ctx, `INSERT INTO relations (unit_id, type, target_id, description) VALUES ($1, 'contradicts', $2, '')`, id, target))
	must(tx.Exec(ctx, `INSERT INTO events (epoch, operation, agent_id, unit_id, payload, at) VALUES ($1, 'RECORD', $2, $3, '{}', now())`,
		e, agent, id))
	scan(&cseq, `SELECT next_number('conflicts')`)
	cid := fmt.Sprintf("conflict-%03d", cseq)
	must(tx.Exec(ctx, `INSERT INTO conflicts (seq, id, type, status, unit_a, unit_b, description, detected_by, detected_at, epoch, version)
		VALUES ($1, $2, 'factual', 'detected', $3, $4, $5, 'explicit', now(), $6, 1)`, cseq, cid, target, id, id+" contradicts "+target, e))
	must(tx.Exec(ctx, `UPDATE units SET status = 'contested' WHERE id IN ($1, $2) AND status = 'active'`, target, id))
	must(tx.Exec(ctx, `INSERT INTO events (epoch, operation, agent_id, conflict_id, unit_id, payload, at)
		VALUES ($1, 'DETECT', $2, $3, $4, '{}', now())`, e, agent, cid, id))
	must(tx.Exec(ctx, `INSERT INTO notifications (agent_id, event, epoch, relevance_score, summary, unit_id, conflict_id, requires_action, created_at)
		SELECT DISTINCT agent_id, 'conflict.detected', $1::bigint, 1, $2, $3, $4, true, now()
		FROM units WHERE id IN ($5, $3)`, e, cid+": a new contradiction", id, cid, target))
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return id, cid
}

// essence is what must agree between two fields, times and texts aside.
type essence struct {
	Clock     int64
	Conflict  [7]any
	Units     [2][3]any
	Relations []model.Relation
	Events    []string
	Notified  []string
}

func essenceOf(t *testing.T, f *rt.Field, conflict string) essence {
	t.Helper()
	d := f.Detail(t, conflict)
	c := d.Conflict
	e := essence{Clock: f.Clock(t),
		Conflict:  [7]any{c.ID, c.Type, c.Status, c.UnitA, c.UnitB, c.DetectedBy, c.Version},
		Units:     [2][3]any{{d.A.Unit.ID, d.A.Unit.Status, d.A.Unit.Epoch}, {d.B.Unit.ID, d.B.Unit.Status, d.B.Unit.Epoch}},
		Relations: d.B.Unit.Relations}
	for _, ev := range d.Events {
		e.Events = append(e.Events, fmt.Sprintf("%d %s %s %s", ev.Epoch, ev.Operation, ev.AgentID, deref(ev.UnitID)))
	}
	for _, n := range d.Notifications {
		e.Notified = append(e.Notified, fmt.Sprintf("%d %s %s %s %v", n.Epoch, n.AgentID, n.Event, deref(n.MemoryUnitID), n.RequiresAction))
	}
	return e
}

// TestForeignWriterRecipe runs the SQL recipe of docs/field-format.md on
// one field and RECORD on its twin: the two must come out the same, and the
// conflict the recipe opened must be decidable by the rules.
func TestForeignWriterRecipe(t *testing.T) {
	twin := func() (*rt.Field, string) {
		f := rt.New(t, rt.Policy())
		res, err := f.Svc.Record(context.Background(), senior2, finding("The cache is warm at boot."))
		if err != nil {
			t.Fatal(err)
		}
		return f, res.UnitID
	}
	byRules, target := twin()
	bySQL, target2 := twin()
	if target != target2 {
		t.Fatalf("twins differ: %s and %s", target, target2)
	}

	r := finding("The cache is cold at boot.", model.Relation{Type: model.RelContradicts, TargetID: target})
	r.Confidence.Score = model.Ptr(0.8)
	res, err := byRules.Svc.Record(context.Background(), standard, r)
	if err != nil {
		t.Fatal(err)
	}
	id, cid := recordBySQL(t, bySQL.Path, standard, "analyst", target, "The cache is cold at boot.")
	if id != res.UnitID || cid != res.Conflicts[0].ID {
		t.Fatalf("the recipe made %s and %s; RECORD made %s and %s", id, cid, res.UnitID, res.Conflicts[0].ID)
	}

	want, got := essenceOf(t, byRules, cid), essenceOf(t, bySQL, cid)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the recipe wrote\n%+v\nRECORD wrote\n%+v", got, want)
	}

	resp := merge(t, bySQL, senior1, req(cid, model.ConfidenceWeighted, id, "0.8 against 0.7"))
	wantStrings(t, "superseded", resp.SideEffects.SupersededUnits, []string{target})
	wantStrings(t, "notified", resp.SideEffects.NotifiedAgents, authors)
	wantUnitStatus(t, bySQL, id, model.UnitActive)
}
