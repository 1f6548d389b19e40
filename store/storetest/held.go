package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// A held decision waits until it is due, comes out of HeldDue then, is
// marked done or deleted once whoever races for it, and is kept, done,
// with its outcome for its person.
func testHeld(t *testing.T, e Engine) {
	st, _ := field(t, e)
	t0 := now()
	req, _ := json.Marshal(model.VoteRequest{ConflictID: "c1", Choice: "A", Rationale: "why"})
	held := func(id, agent string, due time.Duration) model.HeldDecision {
		return model.HeldDecision{ID: id, AgentID: agent, ConflictID: "c1", Kind: model.HeldVote, Request: req,
			HeldAt: t0, DueAt: t0.Add(due)}
	}
	h1, h2, h3 := held("held-1", "a1", 15*time.Second), held("held-2", "a2", 10*time.Second), held("held-3", "a1", 20*time.Second)
	write(t, st, func(tx store.Tx) error {
		for _, h := range []model.HeldDecision{h1, h2, h3} {
			if err := tx.HeldInsert(h); err != nil {
				return err
			}
		}
		return nil
	})
	due := func(at time.Duration, limit int) []string {
		t.Helper()
		var ids []string
		read(t, st, func(tx store.Tx) error {
			hs, err := tx.HeldDue(t0.Add(at), limit)
			for _, h := range hs {
				ids = append(ids, h.ID)
			}
			return err
		})
		return ids
	}
	if got := due(5*time.Second, 10); len(got) != 0 {
		t.Fatalf("due before their time: %v", got)
	}
	if got := due(15*time.Second, 10); !reflect.DeepEqual(got, []string{"held-2", "held-1"}) {
		t.Fatalf("due at 15 s: %v, want held-2 then held-1", got)
	}
	if got := due(time.Minute, 1); !reflect.DeepEqual(got, []string{"held-2"}) {
		t.Fatalf("due, at most 1: %v", got)
	}
	read(t, st, func(tx store.Tx) error {
		got, err := tx.Held("held-1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, h1) {
			t.Errorf("Held round trip:\n got %+v\nwant %+v", got, h1)
		}
		if _, err := tx.Held("held-9"); err != store.ErrNotFound {
			t.Errorf("Held of none: %v, want ErrNotFound", err)
		}
		return nil
	})

	doneAt := t0.Add(16 * time.Second)
	var first, second bool
	write(t, st, func(tx store.Tx) (err error) {
		if first, err = tx.HeldDone("held-1", doneAt, "c1 was decided by a2 first"); err != nil {
			return err
		}
		second, err = tx.HeldDone("held-1", doneAt, "")
		return err
	})
	if !first || second {
		t.Fatalf("HeldDone twice: %v then %v, want true then false", first, second)
	}
	if got := due(time.Minute, 10); !reflect.DeepEqual(got, []string{"held-2", "held-3"}) {
		t.Fatalf("due after held-1 was done: %v", got)
	}
	read(t, st, func(tx store.Tx) error {
		hs, err := tx.HeldOf("a1")
		if err != nil {
			return err
		}
		if len(hs) != 2 || hs[0].ID != "held-1" || hs[0].DoneAt == nil || !hs[0].DoneAt.Equal(doneAt) ||
			hs[0].Outcome != "c1 was decided by a2 first" || hs[1].ID != "held-3" || hs[1].DoneAt != nil {
			t.Errorf("HeldOf(a1): %+v", hs)
		}
		return nil
	})
	var waiting, doneToo, again bool
	write(t, st, func(tx store.Tx) (err error) {
		if waiting, err = tx.HeldDelete("held-1", true); err != nil {
			return err
		}
		if doneToo, err = tx.HeldDelete("held-1", false); err != nil {
			return err
		}
		again, err = tx.HeldDelete("held-1", false)
		return err
	})
	if waiting || !doneToo || again {
		t.Fatalf("HeldDelete of a done one: only waiting %v, any %v, again %v; want false, true, false", waiting, doneToo, again)
	}
	if err := st.Write(context.Background(), func(tx store.Tx) error {
		return tx.HeldInsert(held("held-4", "nobody", 0))
	}); err == nil {
		t.Error("a decision held for an agent the field does not know was stored")
	}
}

// Sweepers racing for the same held decisions each carry out a different
// one: HeldDone says yes to one of them only.
func testHeldRace(t *testing.T, e Engine) {
	st, name := field(t, e)
	const n = 40
	t0 := now()
	write(t, st, func(tx store.Tx) error {
		for i := range n {
			if err := tx.HeldInsert(model.HeldDecision{ID: fmt.Sprintf("held-%02d", i), AgentID: "a1", ConflictID: "c1",
				Kind: model.HeldMerge, Request: []byte(`{}`), HeldAt: t0, DueAt: t0}); err != nil {
				return err
			}
		}
		return nil
	})
	var mu sync.Mutex
	won := map[string]int{}
	var wg sync.WaitGroup
	for w := range 4 {
		other := e.Open(t, name, store.Options{})
		wg.Go(func() {
			for {
				var due []model.HeldDecision
				if err := other.Read(context.Background(), func(tx store.Tx) (err error) { due, err = tx.HeldDue(t0, 5); return err }); err != nil {
					t.Error(err)
					return
				}
				if len(due) == 0 {
					return
				}
				for _, h := range due {
					var ok bool
					if err := other.Write(context.Background(), func(tx store.Tx) (err error) {
						ok, err = tx.HeldDone(h.ID, t0, fmt.Sprintf("w%d", w))
						return err
					}); err != nil {
						t.Error(err)
						return
					}
					if ok {
						mu.Lock()
						won[h.ID]++
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	if len(won) != n {
		t.Fatalf("%d held decisions carried out, want %d", len(won), n)
	}
	for id, k := range won {
		if k != 1 {
			t.Errorf("%s carried out %d times", id, k)
		}
	}
}

// Check of a field in place, open for writing or read-only, is nil.
func testCheck(t *testing.T, e Engine) {
	st, name := field(t, e)
	if err := st.Check(context.Background()); err != nil {
		t.Fatalf("Check of a field in place: %v", err)
	}
	ro := e.Open(t, name, store.Options{ReadOnly: true})
	if err := ro.Check(context.Background()); err != nil {
		t.Fatalf("Check of a field opened read-only: %v", err)
	}
}
