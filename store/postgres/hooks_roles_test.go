package postgres_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"arbiter/model"
	"arbiter/service/deliver"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/postgres"
)

// With the roles of docs/postgres.md: an operator's login adds a hook,
// an agent's login writes a notice that queues a delivery, and a
// deliverer on the operator's login sends it, and disables the hook when
// its receiver answers 410; an agent's login may not add a hook.
func TestHooksAndDeliveriesWorkUnderTheRoles(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	var got atomic.Int32
	var gone atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
		if gone.Load() {
			w.WriteHeader(http.StatusGone)
		}
	}))
	defer srv.Close()
	bot, maya := as(t, tm.bot), as(t, tm.maya)
	h := model.Hook{ID: model.NewHookID(), AgentID: rt.Standard, URL: srv.URL, Format: deliver.FormatStandard, Secret: deliver.NewSecret(),
		AllowPrivate: true}
	if _, err := bot.HookAdd(ctx, rt.Standard, h); err == nil {
		t.Fatal("an agent added a hook")
	}
	if _, err := maya.HookAdd(ctx, rt.Operator, h); err != nil {
		t.Fatalf("the operator adds a hook: %v", err)
	}
	a, err := bot.Record(ctx, rt.Standard, finding("p99 is 40 ms"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := as(t, tm.sen).Record(ctx, rt.Senior1, finding("p99 is 90 ms", model.Relation{Type: model.RelContradicts, TargetID: a.UnitID})); err != nil {
		t.Fatalf("an agent's contradiction, which tells standard, queues a delivery: %v", err)
	}
	st, err := postgres.Open(ctx, tm.maya, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := deliver.Once(ctx, st, deliver.Options{})
	if err != nil || rep.Delivered != 1 || got.Load() != 1 {
		t.Fatalf("the operator's deliverer: %+v (%v), %d received", rep, err, got.Load())
	}

	// The receiver is gone (410): the operator's deliverer, acting as the
	// operator, disables the hook and tells the operators and the hook's
	// person.
	gone.Store(true)
	if _, err := as(t, tm.sen).Record(ctx, rt.Senior1, finding("p99 is 95 ms", model.Relation{Type: model.RelContradicts, TargetID: a.UnitID})); err != nil {
		t.Fatal(err)
	}
	if rep, err := deliver.Once(ctx, st, deliver.Options{Actor: rt.Operator}); err != nil || rep.Dead != 1 {
		t.Fatalf("after a 410: %+v (%v)", rep, err)
	}
	hooks, err := maya.Hooks(ctx)
	if err != nil || len(hooks) != 1 || hooks[0].Enabled() {
		t.Fatalf("after a 410, %d hooks (%v), the first enabled: want it disabled", len(hooks), err)
	}
	for _, who := range []string{rt.Operator, rt.Standard} {
		ns, err := maya.Inbox(ctx, who, 0, 0)
		if err != nil || len(ns) == 0 || ns[len(ns)-1].Event != model.EventHookDisabled {
			t.Errorf("%s's inbox %+v (%v): want the hook's disabling last", who, ns, err)
		}
	}
}
