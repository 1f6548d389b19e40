package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// hooked is a field with a hook for a1 (all events) and one for a2
// (conflict.resolved only), and one notice to a1 with a delivery to its
// hook: the notice and the delivery written in one transaction.
func hooked(t *testing.T, e Engine) (store.Field, string, int64) {
	st, name := field(t, e)
	at := now()
	write(t, st, func(tx store.Tx) error {
		if err := tx.HookInsert(model.Hook{ID: "hook-1", AgentID: "a1", URL: "https://example.com/h", Format: "standard",
			Events: []string{}, Secret: "whsec_c2VjcmV0", CreatedBy: "a2", CreatedAt: at}); err != nil {
			return err
		}
		return tx.HookInsert(model.Hook{ID: "hook-2", AgentID: "a2", URL: "https://example.com/s", Format: "slack",
			Events: []string{model.EventConflictResolved}, Secret: "whsec_b3RoZXI=", CreatedBy: "a2", CreatedAt: at.Add(time.Second)})
	})
	var nid int64
	write(t, st, func(tx store.Tx) error {
		var err error
		nid, err = tx.NotificationInsert(model.Notification{AgentID: "a1", Event: model.EventConflictEscalated, Epoch: 2,
			RelevanceScore: 1, Summary: "waits for you", RequiresAction: true, CreatedAt: at})
		if err != nil {
			return err
		}
		return tx.DeliveryInsert(model.Delivery{ID: "msg_1", HookID: "hook-1", NotificationID: nid, NextAt: at, CreatedAt: at})
	})
	return st, name, nid
}

func testHooks(t *testing.T, e Engine) {
	st, _, nid := hooked(t, e)
	read(t, st, func(tx store.Tx) error {
		all, err := tx.Hooks("")
		if err != nil {
			return err
		}
		if len(all) != 2 || all[0].ID != "hook-1" || all[1].Format != "slack" || all[0].Secret != "whsec_c2VjcmV0" ||
			len(all[0].Events) != 0 || len(all[1].Events) != 1 || !all[1].Wants(model.EventConflictResolved) || all[1].Wants("x") {
			t.Fatalf("hooks %+v", all)
		}
		mine, err := tx.Hooks("a2")
		if err != nil || len(mine) != 1 || mine[0].ID != "hook-2" {
			t.Fatalf("a2's hooks %+v (%v)", mine, err)
		}
		ds, err := tx.Deliveries(model.DeliveryQuery{})
		if err != nil {
			return err
		}
		if len(ds) != 1 || ds[0].ID != "msg_1" || ds[0].State != model.DeliveryPending || ds[0].Notice.ID != nid ||
			ds[0].Notice.Summary != "waits for you" || ds[0].Hook.URL != "https://example.com/h" || ds[0].Hook.Secret == "" {
			t.Fatalf("deliveries %+v", ds)
		}
		return nil
	})
	// A delivery must name a hook and a notice that exist.
	err := st.Write(context.Background(), func(tx store.Tx) error {
		return tx.DeliveryInsert(model.Delivery{ID: "msg_x", HookID: "hook-9", NotificationID: nid, NextAt: now(), CreatedAt: now()})
	})
	if err == nil {
		t.Fatal("a delivery to a hook that is not there was stored")
	}
	write(t, st, func(tx store.Tx) error { return tx.HookDelete("hook-1") })
	read(t, st, func(tx store.Tx) error {
		ds, err := tx.Deliveries(model.DeliveryQuery{})
		if err != nil || len(ds) != 0 {
			t.Fatalf("after removing its hook, deliveries %+v (%v)", ds, err)
		}
		return nil
	})
	err = st.Write(context.Background(), func(tx store.Tx) error { return tx.HookDelete("hook-1") })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("removing a hook twice: %v, want ErrNotFound", err)
	}
}

func testDeliveryLifecycle(t *testing.T, e Engine) {
	st, _, _ := hooked(t, e)
	at := now()
	var got []model.Delivery
	write(t, st, func(tx store.Tx) (err error) {
		got, err = tx.DeliveryClaim(store.Claim{Token: "w1", Now: at, Lease: time.Minute, Limit: 10})
		return err
	})
	if len(got) != 1 || got[0].ID != "msg_1" || got[0].Hook.Secret == "" || got[0].Notice.Event != model.EventConflictEscalated ||
		got[0].Claim != "w1" || got[0].ClaimedUntil == nil || !got[0].ClaimedUntil.Equal(at.Add(time.Minute)) {
		t.Fatalf("claimed %+v", got)
	}
	// Claimed: nobody else gets it until the lease runs out.
	read(t, st, func(tx store.Tx) error {
		next, err := tx.DeliveryNext(nil)
		if err != nil || next == nil || !next.Equal(at.Add(time.Minute)) {
			t.Fatalf("next claimable %v (%v), want when the claim runs out, %v", next, err, at.Add(time.Minute))
		}
		return err
	})
	write(t, st, func(tx store.Tx) error {
		again, err := tx.DeliveryClaim(store.Claim{Token: "w2", Now: at.Add(30 * time.Second), Lease: time.Minute, Limit: 10})
		if err != nil || len(again) != 0 {
			t.Fatalf("w2 claimed %+v (%v) while w1 holds it", again, err)
		}
		return err
	})
	// A try that failed: due again later, tried once.
	d := got[0]
	d.Attempts, d.NextAt, d.LastError = 1, at.Add(2*time.Second), "503 Service Unavailable"
	if recordTry(t, st, d, "w2") {
		t.Fatal("a worker without the claim recorded a try")
	}
	if !recordTry(t, st, d, "w1") {
		t.Fatal("the claim's holder could not record its try")
	}
	read(t, st, func(tx store.Tx) error {
		next, err := tx.DeliveryNext(nil)
		if err != nil || next == nil || !next.Equal(at.Add(2*time.Second)) {
			t.Fatalf("next due %v (%v), want %v", next, err, at.Add(2*time.Second))
		}
		return err
	})
	write(t, st, func(tx store.Tx) error {
		early, err := tx.DeliveryClaim(store.Claim{Token: "w2", Now: at.Add(time.Second), Lease: time.Minute, Limit: 10})
		if err != nil || len(early) != 0 {
			t.Fatalf("claimed %+v before it is due", early)
		}
		return err
	})
	// The lease of a worker that died runs out: another claims it.
	write(t, st, func(tx store.Tx) (err error) {
		got, err = tx.DeliveryClaim(store.Claim{Token: "w2", Now: at.Add(3 * time.Second), Lease: time.Second, Limit: 10})
		return err
	})
	if len(got) != 1 || got[0].Attempts != 1 || got[0].LastError != "503 Service Unavailable" {
		t.Fatalf("claimed again %+v", got)
	}
	// Given up: dead, listed as dead, and queued again by retry.
	d = got[0]
	d.State, d.Attempts, d.LastError = model.DeliveryDead, 2, "404 Not Found"
	recordTry(t, st, d, "w2")
	read(t, st, func(tx store.Tx) error {
		dead, err := tx.Deliveries(model.DeliveryQuery{State: model.DeliveryDead})
		if err != nil || len(dead) != 1 || dead[0].Attempts != 2 {
			t.Fatalf("dead %+v (%v)", dead, err)
		}
		next, err := tx.DeliveryNext(nil)
		if next != nil {
			t.Fatalf("a dead delivery is due at %v", next)
		}
		return err
	})
	err := st.Write(context.Background(), func(tx store.Tx) error { _, err := tx.DeliveryRetry("msg_nope", at); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("retrying a delivery that is not dead: %v", err)
	}
	write(t, st, func(tx store.Tx) error {
		n, err := tx.DeliveryRetry("", at.Add(10*time.Second))
		if err != nil || n != 1 {
			t.Fatalf("retry all: %d (%v)", n, err)
		}
		return err
	})
	write(t, st, func(tx store.Tx) (err error) {
		got, err = tx.DeliveryClaim(store.Claim{Token: "w3", Now: at.Add(10 * time.Second), Lease: time.Minute, Limit: 10})
		return err
	})
	if len(got) != 1 || got[0].Attempts != 0 {
		t.Fatalf("after retry, claimed %+v", got)
	}
	d = got[0]
	delivered := at.Add(11 * time.Second)
	d.State, d.Attempts, d.DeliveredAt, d.LastError = model.DeliveryDelivered, 1, &delivered, ""
	recordTry(t, st, d, "w3")
	read(t, st, func(tx store.Tx) error {
		ds, err := tx.Deliveries(model.DeliveryQuery{State: model.DeliveryDelivered})
		if err != nil || len(ds) != 1 || ds[0].DeliveredAt == nil || !ds[0].DeliveredAt.Equal(delivered) {
			t.Fatalf("delivered %+v (%v)", ds, err)
		}
		return err
	})
}

// Workers claiming at once, each on its own connection, never get the
// same delivery, and between them get every one.
func testDeliveryClaimsRace(t *testing.T, e Engine) {
	st, name, nid := hooked(t, e)
	const n = 60
	at := now()
	write(t, st, func(tx store.Tx) error {
		for i := range n {
			if err := tx.DeliveryInsert(model.Delivery{ID: fmt.Sprintf("msg_r%02d", i), HookID: "hook-1", NotificationID: nid,
				NextAt: at, CreatedAt: at}); err != nil {
				return err
			}
		}
		return nil
	})
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for w := range 4 {
		other := e.Open(t, name, store.Options{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker := fmt.Sprintf("w%d", w)
			for {
				var got []model.Delivery
				err := other.Write(context.Background(), func(tx store.Tx) (err error) {
					got, err = tx.DeliveryClaim(store.Claim{Token: worker, Now: at, Lease: time.Hour, Limit: 3})
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, d := range got {
					if prev, ok := seen[d.ID]; ok {
						t.Errorf("%s claimed by %s and %s", d.ID, prev, worker)
					}
					seen[d.ID] = worker
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != n+1 {
		t.Fatalf("%d deliveries claimed, want %d", len(seen), n+1)
	}
}
