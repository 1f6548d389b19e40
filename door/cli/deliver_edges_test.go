package cli

import (
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/service/deliver/delivertest"
)

// One hook's receiver hangs (it never answers; the send timeout is ten
// minutes): another hook's notices arrive and are recorded delivered all
// the same, the later ones included, while the hanging sends still wait.
func TestOneHangingReceiverHoldsUpNoOtherHook(t *testing.T) {
	bothEngines(t, func(t *testing.T, db string) {
		hookedField(t, db)
		hanging, fine := delivertest.Start(t, "hang..."), delivertest.Start(t)
		slow, _ := addHook(t, db, "ana", hanging.URL)
		fast, _ := addHook(t, db, "ana", fine.URL)
		startArbiter(t, "--db", db, "deliver", "--send-timeout", "10m")
		conflict(t, db)
		conflict(t, db)
		until(t, "the hanging receiver to hold a send", func() bool { return len(hanging.Requests(t)) > 0 })
		conflict(t, db)
		conflict(t, db)
		until(t, "every notice to the other hook delivered", func() bool {
			ds := hookDeliveries(t, db, fast)
			return len(ds) == 4 && allDelivered(ds)
		})
		if got := delivertest.IDs(fine.Requests(t)); len(got) != 4 {
			t.Fatalf("the other receiver got %v, want 4 deliveries", got)
		}
		for _, d := range hookDeliveries(t, db, slow) {
			if d.State != model.DeliveryPending || d.Attempts != 0 {
				t.Errorf("a delivery to the hanging receiver: %s, %d tries, want pending and in flight", d.State, d.Attempts)
			}
		}
	})
}

// Two deliverers with a two-second lease, against a receiver that takes
// five seconds to answer: the lease is raised and renewed while the send
// runs, so each delivery is sent once and recorded delivered after one
// try (each was sent 9 times in 25 s, and stayed pending).
func TestALeaseShorterThanASendSendsEachDeliveryOnce(t *testing.T) {
	bothEngines(t, func(t *testing.T, db string) {
		hookedField(t, db)
		recv := delivertest.Start(t, "wait=5s...")
		hook, secret := addHook(t, db, "ana", recv.URL)
		recv.Verify(t, secret)
		a := startArbiter(t, "--db", db, "deliver", "--lease", "2s")
		b := startArbiter(t, "--db", db, "deliver", "--lease", "2s")
		for range 3 {
			conflict(t, db)
		}
		until(t, "every delivery delivered", func() bool { ds := hookDeliveries(t, db, hook); return len(ds) == 3 && allDelivered(ds) })
		for _, d := range hookDeliveries(t, db, hook) {
			if d.Attempts != 1 {
				t.Errorf("%s: %d tries, want 1", d.ID, d.Attempts)
			}
		}
		reqs := recv.Requests(t)
		for id, n := range delivertest.IDs(reqs) {
			if n != 1 {
				t.Errorf("%s was sent %d times", id, n)
			}
		}
		if len(reqs) != 3 {
			t.Errorf("the receiver got %d requests for 3 deliveries", len(reqs))
		}
		for _, p := range []*proc{a, b} {
			if !strings.Contains(p.errors(t), "--lease 2s is raised to 5s") {
				t.Errorf("a deliverer did not say its lease was raised:\n%s", p.errors(t))
			}
		}
	})
}

// A 429 or 503 with Retry-After is tried again no sooner than it asks
// (seconds, or a date), and no later than an hour.
func TestRetryAfterIsHonouredWithinAnHour(t *testing.T) {
	bothEngines(t, func(t *testing.T, db string) {
		hookedField(t, db)
		far := time.Now().Add(3 * time.Hour).UTC().Format(time.RFC1123)
		recv := delivertest.Start(t, "429:120", "503:"+strings.ReplaceAll(strings.Replace(far, "UTC", "GMT", 1), " ", "_"))
		hook, _ := addHook(t, db, "ana", recv.URL)
		for i, want := range []struct{ least, most time.Duration }{{2 * time.Minute, 3 * time.Minute}, {time.Hour - time.Minute, time.Hour + time.Minute}} {
			conflict(t, db)
			before := time.Now()
			ok(t, "--db", db, "deliver", "--once", "--quiet")
			ds := hookDeliveries(t, db, hook) // newest first
			if len(ds) != i+1 || ds[0].Attempts != 1 || ds[0].State != model.DeliveryPending {
				t.Fatalf("after try %d: %+v", i+1, ds)
			}
			if wait := ds[0].NextAt.Sub(before); wait < want.least || wait > want.most {
				t.Errorf("answered %s: tried again in %s, want between %s and %s (%s)", recv.Requests(t)[i].Answer,
					wait.Round(time.Second), want.least, want.most, ds[0].LastError)
			}
		}
	})
}

// A receiver that answers 410 Gone disables its hook: nothing more is
// queued for it or sent, the human operators and the hook's person are
// told in their inboxes, hooks list says so, and an operator enables it
// again.
func TestA410DisablesTheHookAndTellsTheOperators(t *testing.T) {
	bothEngines(t, func(t *testing.T, db string) {
		hookedField(t, db)
		recv := delivertest.Start(t, "410")
		hook, _ := addHook(t, db, "ana", recv.URL)
		conflict(t, db)
		ok(t, "--db", db, "deliver", "--once", "--quiet")
		ds := hookDeliveries(t, db, hook)
		if len(ds) != 1 || ds[0].State != model.DeliveryDead || !strings.Contains(ds[0].LastError, "410") {
			t.Fatalf("after the 410: %+v", ds)
		}
		if list := ok(t, "--db", db, "hooks", "list"); !strings.Contains(list, "disabled") || !strings.Contains(list, "410 Gone") {
			t.Errorf("hooks list does not say the hook is disabled:\n%s", list)
		}
		for _, who := range []string{"op", "ana"} {
			var told bool
			for _, n := range listInbox(t, db, who) {
				told = told || (n.Event == model.EventHookDisabled && strings.Contains(n.Summary, hook) &&
					strings.Contains(n.Summary, "hooks enable") && n.RequiresAction == (who == "op"))
			}
			if !told {
				t.Errorf("%s is not told the hook was disabled: %+v", who, listInbox(t, db, who))
			}
		}
		conflict(t, db)
		ok(t, "--db", db, "deliver", "--once", "--quiet")
		if ds := hookDeliveries(t, db, hook); len(ds) != 1 {
			t.Fatalf("a notice queued %d deliveries to the disabled hook", len(ds)-1)
		}
		if r := arbiter(t, "--db", db, "--as", "ana", "hooks", "enable", hook); r.code != 3 {
			t.Errorf("an agent enabled a hook: exit %d", r.code)
		}
		ok(t, "--db", db, "--as", "op", "hooks", "enable", hook)
		conflict(t, db)
		ok(t, "--db", db, "deliver", "--once", "--quiet")
		if ds := hookDeliveries(t, db, hook); len(ds) != 2 || ds[0].State != model.DeliveryDelivered {
			t.Fatalf("enabled again: %+v", ds)
		}
		if got := recv.Requests(t); len(got) != 2 {
			t.Fatalf("the receiver got %d requests, want the 410 and the one after enabling", len(got))
		}
	})
}

// A try takes at most --send-timeout; by default 20 s, within the 15–30 s
// of the Standard Webhooks specification.
func TestASendTimesOut(t *testing.T) {
	if deliver.DefaultSendTimeout < 15*time.Second || deliver.DefaultSendTimeout > 30*time.Second {
		t.Errorf("the default send timeout is %s, want 15–30 s", deliver.DefaultSendTimeout)
	}
	db := hookedField(t, t.TempDir()+"/field.db")
	recv := delivertest.Start(t, "hang")
	hook, _ := addHook(t, db, "ana", recv.URL)
	conflict(t, db)
	ok(t, "--db", db, "deliver", "--once", "--quiet", "--send-timeout", "1s")
	if ds := hookDeliveries(t, db, hook); len(ds) != 1 || ds[0].Attempts != 1 || !strings.Contains(ds[0].LastError, "Timeout") {
		t.Fatalf("after a hanging try: %+v", ds)
	}
}

// A deliverer killed with SIGKILL mid-send leaves claims that run out
// within the lease (15 s, renewed while sending), not a minute; another
// deliverer sends what it held, again only what was in flight.
func TestAKilledDelivererLeavesClaimsForOneShortLease(t *testing.T) {
	bothEngines(t, func(t *testing.T, db string) {
		hookedField(t, db)
		recv := delivertest.Start(t, "wait=3s...")
		hook, _ := addHook(t, db, "ana", recv.URL)
		for range 6 {
			conflict(t, db)
		}
		a := startArbiter(t, "--db", db, "deliver")
		until(t, "sends in flight", func() bool { return len(recv.Requests(t)) >= 2 })
		a.kill9(t)
		killed := time.Now()
		var held int
		for _, d := range deliveriesJSON(t, db) {
			at, ok := d["claimed_until"].(string)
			if !ok {
				continue
			}
			held++
			until, err := time.Parse(time.RFC3339Nano, at)
			if err != nil || until.Sub(killed) > deliver.DefaultLease+time.Second {
				t.Errorf("%s is held until %s, %s after the kill: want at most the lease, %s", d["id"], at,
					until.Sub(killed).Round(time.Second), deliver.DefaultLease)
			}
		}
		if held == 0 {
			t.Fatal("the killed deliverer held no claim")
		}
		inFlight := len(recv.Requests(t))
		startArbiter(t, "--db", db, "deliver")
		until(t, "every delivery delivered", func() bool { ds := hookDeliveries(t, db, hook); return len(ds) == 6 && allDelivered(ds) })
		dups := len(recv.Requests(t)) - 6
		if dups > inFlight {
			t.Errorf("%d deliveries sent twice; only %d were in flight at the kill", dups, inFlight)
		}
		t.Logf("%d in flight at the kill, %d sent again", inFlight, dups)
	})
}
