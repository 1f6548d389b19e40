package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

func claim(t *testing.T, st store.Field, c store.Claim) []string {
	t.Helper()
	var ids []string
	write(t, st, func(tx store.Tx) error {
		got, err := tx.DeliveryClaim(c)
		for _, d := range got {
			ids = append(ids, d.ID)
		}
		return err
	})
	slices.Sort(ids)
	return ids
}

// recordTry records d's try over claim, and reports whether it was
// recorded (the claim still held it).
func recordTry(t *testing.T, st store.Field, d model.Delivery, claim string) bool {
	t.Helper()
	d.Claim = claim
	var stale []string
	write(t, st, func(tx store.Tx) (err error) { stale, err = tx.DeliveryRecord(d); return err })
	return len(stale) == 0
}

// renew extends claim's hold on ids to until, and returns those it
// still held.
func renew(t *testing.T, st store.Field, claim string, until time.Time, ids ...string) []string {
	t.Helper()
	held := map[string]string{}
	for _, id := range ids {
		held[id] = claim
	}
	var kept []string
	write(t, st, func(tx store.Tx) (err error) { kept, err = tx.DeliveryRenew(held, until); return err })
	slices.Sort(kept)
	return kept
}

func next(t *testing.T, st store.Field, skip ...string) *time.Time {
	t.Helper()
	var at *time.Time
	read(t, st, func(tx store.Tx) (err error) { at, err = tx.DeliveryNext(skip); return err })
	return at
}

// notice writes a notice to a1 about conflict ("" for none) and a
// delivery of it to hook-1, due at at.
func notice(t *testing.T, st store.Field, id, conflict string, at time.Time) {
	t.Helper()
	write(t, st, func(tx store.Tx) error {
		n := model.Notification{AgentID: "a1", Event: model.EventConflictDetected, Epoch: 1, RelevanceScore: 1,
			Summary: id, CreatedAt: at}
		if conflict != "" {
			n.ConflictID = &conflict
		}
		nid, err := tx.NotificationInsert(n)
		if err != nil {
			return err
		}
		n.ID = nid
		return tx.DeliveryInsert(model.Delivery{ID: id, HookID: "hook-1", NotificationID: nid, NextAt: at, CreatedAt: at, Notice: n})
	})
}

// A claim is held by its token: renewed, it lasts; run out and taken by
// another, its holder can neither renew it nor record over the other's.
func testDeliveryClaimTokens(t *testing.T, e Engine) {
	st, _, _ := hooked(t, e)
	at := now()
	if got := claim(t, st, store.Claim{Token: "c1", Now: at, Lease: 10 * time.Second, Limit: 10}); !slices.Equal(got, []string{"msg_1"}) {
		t.Fatalf("c1 claimed %v", got)
	}
	if held := renew(t, st, "c1", at.Add(30*time.Second), "msg_1", "msg_nope"); !slices.Equal(held, []string{"msg_1"}) {
		t.Fatalf("c1 renewed %v, want msg_1", held)
	}
	if n := next(t, st); n == nil || !n.Equal(at.Add(30*time.Second)) {
		t.Fatalf("claimable again at %v, want when the renewed claim runs out", n)
	}
	if got := claim(t, st, store.Claim{Token: "c2", Now: at.Add(20 * time.Second), Lease: 10 * time.Second, Limit: 10}); len(got) != 0 {
		t.Fatalf("c2 claimed %v while the renewed c1 holds it", got)
	}
	if got := claim(t, st, store.Claim{Token: "c2", Now: at.Add(31 * time.Second), Lease: 10 * time.Second, Limit: 10}); !slices.Equal(got, []string{"msg_1"}) {
		t.Fatalf("after c1 ran out, c2 claimed %v", got)
	}
	var d model.Delivery
	read(t, st, func(tx store.Tx) error {
		ds, err := tx.Deliveries(model.DeliveryQuery{})
		d = ds[0]
		return err
	})
	if d.Claim != "c2" {
		t.Fatalf("the delivery is held by %q, want c2", d.Claim)
	}
	// c1's send comes back late: it records nothing and renews nothing.
	d.State, d.Attempts = model.DeliveryDelivered, 1
	if recordTry(t, st, d, "c1") {
		t.Fatal("c1 recorded over c2's claim")
	}
	if held := renew(t, st, "c1", at.Add(time.Hour), "msg_1"); len(held) != 0 {
		t.Fatalf("c1 renewed %v, which c2 holds", held)
	}
	read(t, st, func(tx store.Tx) error {
		ds, err := tx.Deliveries(model.DeliveryQuery{})
		if ds[0].State != model.DeliveryPending || ds[0].Attempts != 0 || ds[0].Claim != "c2" {
			t.Fatalf("after c1's late record and renewal: %+v", ds[0])
		}
		return err
	})
	// Released (renewed into the past), it is claimable at once.
	renew(t, st, "c2", at, "msg_1")
	if got := claim(t, st, store.Claim{Token: "c3", Now: at.Add(32 * time.Second), Lease: 10 * time.Second, Limit: 10}); !slices.Equal(got, []string{"msg_1"}) {
		t.Fatalf("after c2 released it, c3 claimed %v", got)
	}
	if !recordTry(t, st, d, "c3") {
		t.Fatal("c3 could not record over its own claim")
	}
}

// A hook gets the notices of one conflict in order, each once the one
// before it is delivered or given up; other conflicts' do not wait, and
// a hook the deliverer skips is neither claimed nor due.
func testDeliveryOrderPerConflict(t *testing.T, e Engine) {
	st, _, _ := hooked(t, e)
	at := now()
	notice(t, st, "msg_c1a", "conflict-1", at)
	notice(t, st, "msg_c1b", "conflict-1", at)
	notice(t, st, "msg_c2", "conflict-2", at)
	notice(t, st, "msg_none", "", at)
	if got := claim(t, st, store.Claim{Token: "w", Now: at, Lease: time.Minute, Limit: 10, Skip: []string{"hook-1"}}); len(got) != 0 {
		t.Fatalf("claimed %v for a skipped hook", got)
	}
	if n := next(t, st, "hook-1"); n != nil {
		t.Fatalf("a skipped hook's delivery is due at %v", n)
	}
	// At most PerHook of one hook's, the earliest due first.
	few := claim(t, st, store.Claim{Token: "few", Now: at, Lease: time.Minute, Limit: 10, PerHook: 2})
	if !slices.Equal(few, []string{"msg_1", "msg_c1a"}) {
		t.Fatalf("claimed %v with two per hook, want the first two due", few)
	}
	renew(t, st, "few", at, few...)
	got := claim(t, st, store.Claim{Token: "w", Now: at, Lease: time.Minute, Limit: 10})
	if !slices.Equal(got, []string{"msg_1", "msg_c1a", "msg_c2", "msg_none"}) {
		t.Fatalf("claimed %v: want all but the second notice of conflict-1", got)
	}
	if n := next(t, st); n == nil || !n.Equal(at.Add(time.Minute)) {
		t.Fatalf("next %v, want when the claims run out (the waiting one is not due)", n)
	}
	var first model.Delivery
	read(t, st, func(tx store.Tx) error {
		ds, err := tx.Deliveries(model.DeliveryQuery{})
		for _, d := range ds {
			if d.ID == "msg_c1a" {
				first = d
			}
		}
		return err
	})
	first.State, first.Attempts, first.LastError = model.DeliveryDead, 1, "404 Not Found"
	recordTry(t, st, first, "w")
	if got := claim(t, st, store.Claim{Token: "w2", Now: at, Lease: time.Minute, Limit: 10}); !slices.Equal(got, []string{"msg_c1b"}) {
		t.Fatalf("once the first was given up, claimed %v", got)
	}
}

// A disabled hook's pending deliveries are given up, its new ones wait
// unclaimed, and enabled again it is sent them; any channel's name is a
// format, and allow_private is kept.
func testHookDisabled(t *testing.T, e Engine) {
	st, _, _ := hooked(t, e)
	at := now()
	write(t, st, func(tx store.Tx) error {
		return tx.HookInsert(model.Hook{ID: "hook-3", AgentID: "a1", URL: "http://127.0.0.1:9/h", Format: "teams",
			Events: []string{}, Secret: "whsec_c2VjcmV0", CreatedBy: "a2", CreatedAt: at, AllowPrivate: true})
	})
	write(t, st, func(tx store.Tx) error {
		n, err := tx.HookDisable("hook-1", "410 Gone", at)
		if err != nil || n != 1 {
			t.Fatalf("disabling gave up %d (%v), want the one pending", n, err)
		}
		return err
	})
	read(t, st, func(tx store.Tx) error {
		hs, err := tx.Hooks("a1")
		if err != nil || len(hs) != 2 {
			t.Fatalf("hooks %+v (%v)", hs, err)
		}
		h1, h3 := hs[0], hs[1]
		if h1.Enabled() || !h1.DisabledAt.Equal(at) || h1.DisabledWhy != "410 Gone" || h1.AllowPrivate {
			t.Fatalf("disabled hook %+v", h1)
		}
		if !h3.Enabled() || !h3.AllowPrivate || h3.Format != "teams" {
			t.Fatalf("hook %+v", h3)
		}
		ds, err := tx.Deliveries(model.DeliveryQuery{})
		if err != nil || len(ds) != 1 || ds[0].State != model.DeliveryDead || ds[0].LastError != "410 Gone" || ds[0].Hook.Enabled() {
			t.Fatalf("deliveries %+v (%v)", ds, err)
		}
		return err
	})
	for _, id := range []string{"hook-1", "hook-nope"} {
		err := st.Write(context.Background(), func(tx store.Tx) error { _, err := tx.HookDisable(id, "again", at); return err })
		if want := map[string]error{"hook-1": store.ErrStale, "hook-nope": store.ErrNotFound}[id]; !errors.Is(err, want) {
			t.Fatalf("disabling %s: %v, want %v", id, err, want)
		}
	}
	notice(t, st, "msg_later", "", at)
	if got := claim(t, st, store.Claim{Token: "w", Now: at, Lease: time.Minute, Limit: 10}); len(got) != 0 {
		t.Fatalf("claimed %v for a disabled hook", got)
	}
	if n := next(t, st); n != nil {
		t.Fatalf("a disabled hook's delivery is due at %v", n)
	}
	write(t, st, func(tx store.Tx) error { return tx.HookEnable("hook-1") })
	if err := st.Write(context.Background(), func(tx store.Tx) error { return tx.HookEnable("hook-nope") }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("enabling a hook that is not there: %v", err)
	}
	if got := claim(t, st, store.Claim{Token: "w", Now: at, Lease: time.Minute, Limit: 10}); !slices.Equal(got, []string{"msg_later"}) {
		t.Fatalf("enabled again, claimed %v", got)
	}
}
