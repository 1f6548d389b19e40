package deliver_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/service/deliver/delivertest"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
)

// The special-purpose ranges are refused, however an address is written:
// the four a hook reached before, and the rest of the list; addresses
// that reach the public internet are not, even written in IPv6.
func TestSpecialPurposeAddressesAreRefused(t *testing.T) {
	for _, a := range []string{"::7f00:1", "64:ff9b::7f00:1", "192.0.0.192", "198.18.0.1", // reached before
		"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "192.0.2.1",
		"198.51.100.7", "203.0.113.9", "224.0.0.1", "255.255.255.255", "240.0.0.1", "192.88.99.1",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:93.184.215.14", "64:ff9b::a01:203", "64:ff9b:1::1", "2002:7f00:1::",
		"2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo of 127.0.0.1
		"2001:db8::1", "3fff::1", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "fec0::1", "ff02::1", "100::1",
		"2001:2::1", "2001:20::1"} {
		if deliver.Refusal(netip.MustParseAddr(a)) == "" {
			t.Errorf("%s is not refused", a)
		}
	}
	for _, a := range []string{"93.184.215.14", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946",
		"64:ff9b::5db8:d70e", "2002:5db8:d70e::1", "1.1.1.1"} {
		if why := deliver.Refusal(netip.MustParseAddr(a)); why != "" {
			t.Errorf("%s is refused: %s", a, why)
		}
	}
	// hooks add refuses them written in the URL.
	for _, u := range []string{"http://[::7f00:1]:8080/h", "http://[64:ff9b::7f00:1]/h", "http://192.0.0.192/h", "http://198.18.0.1/h"} {
		if err := checkURL(context.Background(), u, false); err == nil {
			t.Errorf("hooks add accepts %s", u)
		}
	}
}

// A hook's host resolves to a public address when the hook is added and
// to a loopback one later (DNS rebinding): the deliverer does not connect
// to it, and says why; nor to the special ranges a name may resolve to.
// With --allow-private the same hook is delivered to.
func TestAHostThatResolvesToAPrivateAddressLaterIsNotDialled(t *testing.T) {
	recv := delivertest.Start(t)
	dns := delivertest.StartDNS(t)
	ctx := context.Background()
	f := rt.New(t, rt.Policy())
	svc := review.New(f.Store)
	hook := model.Hook{ID: model.NewHookID(), AgentID: rt.Senior2, URL: "http://rebind.test:" + recv.Port() + "/hook",
		Format: deliver.FormatStandard, Secret: deliver.NewSecret()}
	dns.Set("rebind.test", "93.184.215.14")
	if err := deliver.CheckHook(ctx, hook, dns.Resolver()); err != nil {
		t.Fatalf("hooks add refuses a name that resolves to a public address: %v", err)
	}
	if _, err := svc.HookAdd(ctx, rt.Operator, hook); err != nil {
		t.Fatal(err)
	}
	clock := time.Now()
	opts := deliver.Options{Resolver: dns.Resolver(), Now: func() time.Time { return clock }}
	for _, answer := range [][]string{{"127.0.0.1"}, {"::7f00:1"}, {"64:ff9b::7f00:1"}, {"192.0.0.192"}, {"198.18.0.1"},
		{"::1", "127.0.0.1"}} {
		dns.Set("rebind.test", answer...)
		f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
		clock = clock.Add(time.Hour)
		rep, err := deliver.Once(ctx, f.Store, opts)
		if err != nil || rep.Delivered != 0 || rep.Retrying == 0 {
			t.Fatalf("resolving to %v: %+v (%v), want nothing delivered", answer, rep, err)
		}
		for _, d := range deliveries(t, f.Store) {
			if d.Attempts > 0 && !strings.Contains(d.LastError, "refused to connect to") {
				t.Errorf("resolving to %v: the try failed with %q, want the refusal", answer, d.LastError)
			}
		}
	}
	if got := recv.Requests(t); len(got) != 0 {
		t.Fatalf("the receiver on 127.0.0.1 got %d requests", len(got))
	}

	// The same hook added with --allow-private reaches it.
	dns.Set("rebind.test", "127.0.0.1")
	if _, err := svc.HookAdd(ctx, rt.Operator, model.Hook{ID: model.NewHookID(), AgentID: rt.Senior2, URL: hook.URL,
		Format: deliver.FormatStandard, Secret: deliver.NewSecret(), AllowPrivate: true}); err != nil {
		t.Fatal(err)
	}
	f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	clock = clock.Add(time.Hour)
	if rep, err := deliver.Once(ctx, f.Store, opts); err != nil || rep.Delivered != 1 {
		t.Fatalf("with --allow-private: %+v (%v), want the one to the second hook delivered", rep, err)
	}
	if got := recv.Requests(t); len(got) != 1 {
		t.Fatalf("the receiver got %d requests, want 1", len(got))
	}
}
