package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

func testInbox(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusDetected)
	at := now()
	var ids []int64
	write(t, st, func(tx store.Tx) error {
		for i, agent := range []string{"a1", "a2", "a1", "a1"} {
			c := "c1"
			n := model.Notification{AgentID: agent, Event: model.EventConflictDetected, Epoch: int64(3 + i), RelevanceScore: 1,
				Summary: "s", ConflictID: &c, RequiresAction: i%2 == 0, CreatedAt: at}
			if i == 3 {
				n.ConflictID, n.MemoryUnitID = nil, model.Ptr("u1")
			}
			id, err := tx.NotificationInsert(n)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if !(ids[0] < ids[1] && ids[1] < ids[2] && ids[2] < ids[3]) {
		t.Fatalf("notification ids %v, want them growing", ids)
	}
	readTail(t, st, func(tx store.Tx) error {
		if n, err := tx.NotificationCount(); err != nil || n != 4 {
			t.Fatalf("NotificationCount = %d (%v), want 4", n, err)
		}
		all, err := tx.Inbox("a1", 0, 0)
		if err != nil {
			return err
		}
		if len(all) != 3 || all[0].ID != ids[0] || all[2].MemoryUnitID == nil || *all[2].MemoryUnitID != "u1" ||
			all[2].ConflictID != nil || !all[0].RequiresAction || all[0].CreatedAt != at {
			t.Fatalf("a1's inbox %+v", all)
		}
		page, err := tx.Inbox("a1", ids[0], 1)
		if err != nil || len(page) != 1 || page[0].ID != ids[2] {
			t.Fatalf("a1's inbox after %d, one: %+v (%v)", ids[0], page, err)
		}
		none, err := tx.Inbox("a2", ids[3], 0)
		if err != nil || len(none) != 0 || none == nil {
			t.Fatalf("a2's inbox after the last: %+v (%v), want an empty list", none, err)
		}
		of, err := tx.NotificationsOfConflict("c1")
		if len(of) != 3 {
			t.Fatalf("notifications of c1: %d, want 3", len(of))
		}
		return err
	})
}

func testEvents(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusDetected)
	at := now()
	c := "c1"
	write(t, st, func(tx store.Tx) error {
		for _, ev := range []model.Event{
			{Epoch: 3, Operation: "DETECT", AgentID: "a1", ConflictID: &c, UnitID: model.Ptr("u2"), At: at},
			{Epoch: 4, Operation: "MERGE", AgentID: "a2", ConflictID: &c, Payload: json.RawMessage(`{"strategy":"vote","message_id":"m-1"}`), At: at},
			{Epoch: 5, Operation: "VOTE", AgentID: "a1", ConflictID: &c, Payload: json.RawMessage(`{"choice":"A"}`), At: at},
			{Epoch: 6, Operation: "REGISTER", AgentID: "a2", At: at},
		} {
			if _, err := tx.EventAppend(ev); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		evs, err := tx.EventsOfConflict("c1")
		if err != nil {
			return err
		}
		if len(evs) != 3 || evs[0].Operation != "DETECT" || string(evs[0].Payload) != "{}" || *evs[0].UnitID != "u2" ||
			string(evs[1].Payload) != `{"strategy":"vote","message_id":"m-1"}` || evs[1].At != at {
			t.Fatalf("events of c1: %+v", evs)
		}
		var ops []string
		if err := tx.DecisionEach(func(ev model.Event) error { ops = append(ops, ev.Operation); return nil }); err != nil {
			return err
		}
		if !reflect.DeepEqual(ops, []string{"MERGE", "VOTE"}) {
			t.Fatalf("decisions %v, want MERGE and VOTE", ops)
		}
		stop := errors.New("stop")
		if err := tx.DecisionEach(func(model.Event) error { return stop }); !errors.Is(err, stop) {
			t.Fatalf("DecisionEach's callback error: %v", err)
		}
		for _, tc := range []struct {
			conflict, message string
			want              bool
		}{{"c1", "m-1", true}, {"c1", "m-2", false}, {"c2", "m-1", false}} {
			if got, err := tx.MessageApplied(tc.conflict, tc.message); got != tc.want || err != nil {
				t.Errorf("MessageApplied(%s, %s) = %v (%v), want %v", tc.conflict, tc.message, got, err, tc.want)
			}
		}
		return nil
	})
}

func testAppendOnly(t *testing.T, e Engine) {
	st, name := field(t, e)
	write(t, st, func(tx store.Tx) error {
		_, err := tx.EventAppend(model.Event{Epoch: 1, Operation: "NOTE", AgentID: "a1", At: now()})
		return err
	})
	for _, sql := range []string{`UPDATE events SET operation = 'FORGED'`, `DELETE FROM events`} {
		if err := e.Exec(t, name, sql); err == nil {
			t.Errorf("%s: the log took it", sql)
		}
	}
	read(t, st, func(tx store.Tx) error {
		n := 0
		err := tx.EventEach(func(ev model.Event) error {
			n++
			if ev.Operation != "NOTE" {
				t.Errorf("the log holds %s", ev.Operation)
			}
			return nil
		})
		if n != 1 {
			t.Errorf("%d events, want 1", n)
		}
		return err
	})
}

// The checks docs/field-format.md promises to other writers.
func testSchemaChecks(t *testing.T, e Engine) {
	st, name := field(t, e)
	write(t, st, func(tx store.Tx) error {
		if _, err := tx.UnitInsert(unit("u1", 1)); err != nil {
			return err
		}
		_, err := tx.UnitInsert(unit("u2", 2))
		return err
	})
	for _, tc := range []struct{ name, sql string }{
		{"a conflict of a unit with itself", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'detected', 'u1', 'u1', 'explicit', '2026-01-01T00:00:00Z', 1)`},
		{"resolved without a strategy", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'resolved', 'u1', 'u2', 'explicit', '2026-01-01T00:00:00Z', 1)`},
		{"a strategy on an open conflict", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch, strategy)
			VALUES ('c9', 'factual', 'detected', 'u1', 'u2', 'explicit', '2026-01-01T00:00:00Z', 1, 'dismiss')`},
		{"a conflict about a missing unit", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'detected', 'u1', 'nope', 'explicit', '2026-01-01T00:00:00Z', 1)`},
		{"an unknown status", `INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'pondering', 'u1', 'u2', 'explicit', '2026-01-01T00:00:00Z', 1)`},
		{"a unit by an unregistered agent", `INSERT INTO units (id, mode, type, content, intent_purpose, agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u9', 'draft', 'finding', 'c', 'p', 'ghost', 'r', '2026-01-01T00:00:00Z', 'draft', 1)`},
		{"an empty purpose", `INSERT INTO units (id, mode, type, content, intent_purpose, agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u9', 'draft', 'finding', 'c', '', 'a1', 'r', '2026-01-01T00:00:00Z', 'draft', 1)`},
		{"a score above 1", `INSERT INTO units (id, mode, type, content, intent_purpose, confidence_score, agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u9', 'draft', 'finding', 'c', 'p', 1.5, 'a1', 'r', '2026-01-01T00:00:00Z', 'draft', 1)`},
		{"a ballot without a rationale", `INSERT INTO votes (conflict_id, voter_id, choice, rationale, epoch, cast_at)
			VALUES ('c1', 'a1', 'u1', '', 1, '2026-01-01T00:00:00Z')`},
		{"a second clock", `INSERT INTO clock (id, epoch) VALUES (2, 0)`},
		{"a clock going below zero", `UPDATE clock SET epoch = -1`},
	} {
		if err := e.Exec(t, name, tc.sql); err == nil {
			t.Errorf("%s: the field took it", tc.name)
		}
	}
}

func testImportHelpers(t *testing.T, e Engine) {
	st, _ := field(t, e)
	write(t, st, func(tx store.Tx) error {
		d := unit("draft-1", 1)
		d.Mode, d.Status = model.ModeDraft, model.UnitDraft
		for _, u := range []model.Unit{d, unit("x", 2)} {
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		// An imported unit of arbiter's id form, stored at another seq.
		if _, err := tx.UnitInsert(unit("mem-007", 3)); err != nil {
			return err
		}
		if err := tx.UnitSeqAlign("mem-007"); err != nil {
			return err
		}
		if err := tx.UnitSeqAlign("x"); err != nil {
			return err
		}
		if err := tx.UnitCommit("draft-1"); err != nil {
			return err
		}
		if err := tx.UnitCommit("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UnitCommit(nope): %v, want ErrNotFound", err)
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Standings([]string{"draft-1", "x", "nope"})
		want := map[string]store.Standing{
			"draft-1": {Mode: model.ModeCommitted, Status: model.UnitActive, AgentID: "a1"},
			"x":       {Mode: model.ModeCommitted, Status: model.UnitActive, AgentID: "a1"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("standings %+v, want %+v", got, want)
		}
		if n, _ := tx.UnitSeqNext(); n != 8 {
			t.Errorf("after aligning mem-007 the next unit seq is %d, want 8", n)
		}
		return err
	})
}

// Bulk writes rows as given, ids and sequence numbers included, and a
// decision on a conflict gathered in the same bulk; the ids after it
// follow the largest written.
// bulkDetection is why testBulk's conflict was detected.
var bulkDetection = &model.Detection{Signal: model.SignalNegation, Score: 0.7, Sensitivity: model.SensitivityLow,
	PhraseA: model.Phrase{End: 3, Text: "is"}, PhraseB: model.Phrase{Start: 1, End: 7, Text: "is not"}}

func testBulk(t *testing.T, e Engine) {
	st, _ := field(t, e)
	at := now()
	c := "c7"
	write(t, st, func(tx store.Tx) error {
		b, err := tx.Bulk()
		if err != nil {
			return err
		}
		u1, u2 := unit("mem-010", 4), unit("mem-011", 5, model.Relation{Type: model.RelContradicts, TargetID: "mem-010"})
		for i, u := range []model.Unit{u1, u2} {
			if err := b.Unit(int64(10+i), u); err != nil {
				return err
			}
		}
		if err := b.Conflict(7, model.Conflict{ID: c, Type: model.ConflictFactual, Status: model.StatusDetected, UnitA: "mem-010",
			UnitB: "mem-011", DetectedBy: model.DetectedLogical, DetectedAt: at, Epoch: 5, Version: 1, Detection: bulkDetection}); err != nil {
			return err
		}
		if err := b.Decision(model.Conflict{ID: c, Status: model.StatusPendingVote, Version: 2,
			VoteOpened: &model.Escalation{By: "a2", Reason: "r", Epoch: 6, At: at}}); err != nil {
			return err
		}
		if err := b.Ballot(model.Ballot{ConflictID: c, VoterID: "a1", Choice: "mem-011", Rationale: "r", Epoch: 7, CastAt: at}); err != nil {
			return err
		}
		if err := b.Notification(model.Notification{ID: 40, AgentID: "a1", Event: "e", Epoch: 7, RelevanceScore: 1, Summary: "s", CreatedAt: at}); err != nil {
			return err
		}
		if err := b.Event(model.Event{ID: 50, Epoch: 7, Operation: "VOTE", AgentID: "a1", ConflictID: &c, At: at}); err != nil {
			return err
		}
		if err := b.Close(); err != nil {
			return err
		}
		_, err = tx.EpochWitness(6)
		return err
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Conflict(c)
		if err != nil {
			return err
		}
		if got.Status != model.StatusPendingVote || got.Version != 2 || got.VoteOpened == nil {
			t.Errorf("the bulk conflict after its decision: %+v", got)
		}
		if !reflect.DeepEqual(got.Detection, bulkDetection) {
			t.Errorf("the bulk conflict's detection: %+v, want %+v", got.Detection, bulkDetection)
		}
		rows, err := tx.ConflictList(model.ListQuery{Statuses: model.ReviewStatuses})
		if len(rows) != 1 || rows[0].Tally == nil || rows[0].Tally.ForB != 1 || rows[0].AgentA != "a1" {
			t.Errorf("the queue after the bulk: %+v (%v)", rows, err)
		}
		if n, _ := tx.UnitSeqNext(); n != 12 {
			t.Errorf("next unit seq %d, want 12", n)
		}
		return err
	})
	var nid, eid int64
	write(t, st, func(tx store.Tx) (err error) {
		if nid, err = tx.NotificationInsert(model.Notification{AgentID: "a1", Event: "e", Epoch: 8, Summary: "s", CreatedAt: at}); err != nil {
			return err
		}
		eid, err = tx.EventAppend(model.Event{Epoch: 8, Operation: "NOTE", AgentID: "a1", At: at})
		return err
	})
	if nid != 41 || eid != 51 {
		t.Errorf("after ids 40 and 50 the next notification is %d and event %d, want 41 and 51", nid, eid)
	}
	dup := st.Write(context.Background(), func(tx store.Tx) error {
		b, err := tx.Bulk()
		if err != nil {
			return err
		}
		if err := b.Decision(model.Conflict{ID: "no-such-conflict", Status: model.StatusEscalated, Version: 2}); err != nil {
			return err
		}
		return b.Close()
	})
	if !errors.Is(dup, store.ErrNotFound) {
		t.Errorf("a bulk decision on a missing conflict: %v, want ErrNotFound", dup)
	}
}

// The whole-field reads give back every row, in order; two fields
// holding the same rows have the same digest, and a change shows in it.
func testEach(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusPendingVote)
	at := now()
	write(t, st, func(tx store.Tx) error {
		if _, err := tx.UnitInsert(unit("u3", 3, model.Relation{Type: model.RelSupports, TargetID: "u1", Description: "yes"},
			model.Relation{Type: model.RelInforms, TargetID: "u2"})); err != nil {
			return err
		}
		for _, v := range []string{"a2", "a1"} {
			if err := tx.BallotPut(model.Ballot{ConflictID: "c1", VoterID: v, Choice: "u1", Rationale: "r", Epoch: 4, CastAt: at}); err != nil {
				return err
			}
		}
		if _, err := tx.NotificationInsert(model.Notification{AgentID: "a1", Event: "e", Epoch: 4, RelevanceScore: 1, Summary: "s", CreatedAt: at}); err != nil {
			return err
		}
		_, err := tx.EventAppend(model.Event{Epoch: 4, Operation: "VOTE", AgentID: "a1", ConflictID: model.Ptr("c1"), At: at})
		return err
	})
	read(t, st, func(tx store.Tx) error {
		var seqs []int64
		var rels int
		if err := tx.UnitEach(func(seq int64, u model.Unit) error {
			seqs = append(seqs, seq)
			rels += len(u.Relations)
			if u.ID == "u3" && (len(u.Relations) != 2 || u.Relations[0].Type != model.RelInforms || u.Relations[1].Description != "yes") {
				t.Errorf("u3's relations %+v", u.Relations)
			}
			return nil
		}); err != nil {
			return err
		}
		if !reflect.DeepEqual(seqs, []int64{1, 2, 3}) || rels != 2 {
			t.Errorf("units by seq %v with %d relations", seqs, rels)
		}
		var voters []string
		if err := tx.BallotEach(func(b model.Ballot) error { voters = append(voters, b.VoterID); return nil }); err != nil {
			return err
		}
		if !reflect.DeepEqual(voters, []string{"a1", "a2"}) {
			t.Errorf("ballots by voter %v", voters)
		}
		var agents []int64
		if err := tx.AgentEach(func(a model.Agent, epoch int64) error { agents = append(agents, epoch); return nil }); err != nil {
			return err
		}
		if len(agents) != 2 || agents[0] != 1 {
			t.Errorf("agents' epochs %v", agents)
		}
		n := 0
		if err := tx.ConflictEachStored(func(seq int64, c model.Conflict) error {
			n++
			if seq != 1 || c.ID != "c1" {
				t.Errorf("conflict %d %s", seq, c.ID)
			}
			return nil
		}); err != nil {
			return err
		}
		s, err := store.Digest(tx)
		if err != nil {
			return err
		}
		if s.Units != 3 || s.Relations != 2 || s.Conflicts != 1 || s.Ballots != 2 || s.Notifications != 1 || s.Events != 1 || s.Agents != 2 || len(s.SHA256) != 64 {
			t.Errorf("summary %v", s)
		}
		return nil
	})
	var before, after store.Summary
	read(t, st, func(tx store.Tx) (err error) { before, err = store.Digest(tx); return err })
	write(t, st, func(tx store.Tx) error { return tx.UnitSetStatus("u3", model.UnitRetracted) })
	read(t, st, func(tx store.Tx) (err error) { after, err = store.Digest(tx); return err })
	if before.SHA256 == after.SHA256 {
		t.Error("retracting a unit left the digest as it was")
	}
	write(t, st, func(tx store.Tx) error {
		return tx.DetectDismiss(model.Dismissed{UnitA: "u1", UnitB: "u2", By: "a2", At: at, ConflictID: "c1"})
	})
	var dismissed store.Summary
	read(t, st, func(tx store.Tx) (err error) { dismissed, err = store.Digest(tx); return err })
	if dismissed.SHA256 == after.SHA256 {
		t.Error("a pair said not to contradict left the digest as it was")
	}
}

// Changed moves when another connection commits, not when it rolls back;
// a field that can wait for changes wakes at another's commit.
func testChanged(t *testing.T, e Engine) {
	st, name := field(t, e)
	ctx := context.Background()
	other := e.Open(t, name, store.Options{})
	v0, err := st.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other.Write(ctx, func(tx store.Tx) error {
		tx.EpochTick()
		return errors.New("changed my mind")
	})
	if v, err := st.Changed(ctx); err != nil || v != v0 {
		t.Errorf("after another's rollback Changed is %d (%v), was %d", v, err, v0)
	}
	write(t, other, func(tx store.Tx) error { _, err := tx.EpochTick(); return err })
	v1, err := st.Changed(ctx)
	if err != nil || v1 == v0 {
		t.Fatalf("after another's commit Changed is %d (%v), was %d", v1, err, v0)
	}
	n, ok := st.(store.Notifier)
	if !ok {
		return
	}
	got := make(chan int64, 1)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a hang, not a speed target
	defer cancel()
	go func() {
		v, _ := n.WaitChange(wctx, v1)
		got <- v
	}()
	time.Sleep(50 * time.Millisecond)
	write(t, other, func(tx store.Tx) error { _, err := tx.EpochTick(); return err })
	if v := <-got; v == v1 {
		t.Fatalf("WaitChange returned %d, the number it was given, after another's commit", v)
	}
	if v, err := n.WaitChange(ctx, v0); err != nil || v == v0 {
		t.Fatalf("WaitChange on an old number: %d (%v), want the current one at once", v, err)
	}
}
