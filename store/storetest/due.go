package storetest

import (
	"context"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// A route's reminder and deadline come out of ConflictsDue when their
// time comes, until what they ask for is done; counting a reminder keeps
// the conflict's version.
func testDue(t *testing.T, e Engine) {
	st, _ := field(t, e)
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	deadline := t0.Add(10 * time.Hour)
	var id string
	write(t, st, func(tx store.Tx) (err error) {
		tx.UnitInsert(unit("u1", 1))
		tx.UnitInsert(unit("u2", 2))
		id, err = tx.ConflictInsert(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: "u1", UnitB: "u2", DetectedBy: model.DetectedExplicit, Epoch: 2})
		if err != nil {
			return err
		}
		c, err := tx.Conflict(id)
		if err != nil {
			return err
		}
		c.Status = model.StatusEscalated
		c.Escalation = &model.Escalation{By: "a1", Reason: "why", Epoch: 3, At: t0}
		c.Route = &model.Route{Owner: "priya", Since: t0, Deadline: &deadline}
		return tx.ConflictUpdate(c, 1)
	})
	due := func(at time.Duration) []string {
		t.Helper()
		var out []string
		read(t, st, func(tx store.Tx) error {
			cs, err := tx.ConflictsDue(t0.Add(at))
			for _, c := range cs {
				out = append(out, c.ID)
			}
			return err
		})
		return out
	}
	if got := due(7 * time.Hour); len(got) != 0 {
		t.Fatalf("due early: %v", got)
	}
	if got := due(8 * time.Hour); len(got) != 1 || got[0] != id {
		t.Fatalf("at a fifth left: %v, want %s", got, id)
	}
	write(t, st, func(tx store.Tx) error { return tx.ConflictSetReminded(id, 0, 1) })
	if err := st.Write(context.Background(), func(tx store.Tx) error { return tx.ConflictSetReminded(id, 0, 1) }); !store.IsStale(err) {
		t.Fatalf("a second reminder from 0: %v, want ErrStale", err)
	}
	if got := due(9 * time.Hour); len(got) != 0 {
		t.Fatalf("due after its reminder: %v", got)
	}
	if got := due(10 * time.Hour); len(got) != 1 {
		t.Fatalf("at the deadline: %v", got)
	}
	write(t, st, func(tx store.Tx) error { return tx.ConflictSetReminded(id, 1, 2) })
	if got := due(100 * time.Hour); len(got) != 0 {
		t.Fatalf("overdue and told, still due: %v", got)
	}
	read(t, st, func(tx store.Tx) error {
		c, err := tx.Conflict(id)
		if c.Version != 2 || c.Route.Reminded != 2 {
			t.Errorf("after two reminders: version %d, reminded %d; want 2 and 2", c.Version, c.Route.Reminded)
		}
		return err
	})
}
