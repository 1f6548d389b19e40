package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/service/deliver/delivertest"
	rt "arbiter/service/review/reviewtest"
)

// BenchmarkDuplicatesPerKilledDeliverer measures what killing a
// deliverer with SIGKILL costs, with real processes: a receiver that
// answers each request after 200 ms, a backlog of 20 notices per kill to
// one hook, and deliverers (arbiter deliver, default flags) started one
// after the other, each killed as soon as the receiver has had three
// requests from it; a last one finishes the work. It reports the
// requests beyond one per delivery, per kill (dup/kill), and how long a
// delivery the killed deliverer had sent waited to be sent again — its
// claim's lease (resend-p50-s, resend-max-s). One engine per run:
// ARBITER_TEST_ENGINE=sqlite (default) or postgres. docs/performance.md.
func BenchmarkDuplicatesPerKilledDeliverer(b *testing.B) {
	db := filepath.Join(b.TempDir(), "field.db")
	if rt.OnPostgres() {
		db = pgtest.Field(b)
	}
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = cleanEnv()
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			b.Fatalf("arbiter %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return out.String()
	}
	run("init", "--db", db)
	run("--db", db, "register", "--id", "ana", "--role", "analyst", "--authority", "6")
	run("--db", db, "register", "--id", "bob", "--role", "analyst")
	run("--db", db, "register", "--id", "op", "--role", "operator", "--kind", "human", "--authority", "10")
	recv := delivertest.Start(b, "wait=200ms...")
	run("--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", recv.URL, "--allow-private")
	record := func(as, payload string) string {
		cmd := exec.Command(bin, "--db", db, "--as", as, "record")
		cmd.Env, cmd.Stdin = cleanEnv(), strings.NewReader(payload)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("record: %v", err)
		}
		return string(out)
	}
	notices := 20 * (b.N + 1)
	for k := range notices {
		id := strings.Fields(record("ana", recordPayload(fmt.Sprintf("p95 is %d ms", 1000+k), 0.8, "")))[1]
		record("bob", recordPayload(fmt.Sprintf("p95 is %d ms", 5000+k), 0.5, id))
	}
	deliverer := func() *exec.Cmd {
		cmd := exec.Command(bin, "--db", db, "deliver", "--quiet")
		cmd.Env = cleanEnv()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		return cmd
	}
	waitFor := func(what string, cond func() bool) {
		for end := time.Now().Add(5 * time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				b.Fatalf("still waiting for %s", what)
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		seen := len(recv.Requests(b))
		d := deliverer()
		waitFor("three requests", func() bool { return len(recv.Requests(b)) >= seen+3 })
		d.Process.Kill()
		d.Wait()
	}
	last := deliverer()
	defer func() { last.Process.Kill(); last.Wait() }()
	waitFor("every delivery delivered", func() bool {
		var ds []model.Delivery
		if err := json.Unmarshal([]byte(run("--db", db, "deliveries", "--json", "--limit", "0")), &ds); err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			if d.State != model.DeliveryDelivered {
				return false
			}
		}
		return len(ds) == notices
	})
	b.StopTimer()
	reqs := recv.Requests(b)
	first := map[string]time.Time{}
	var resend []time.Duration
	for _, r := range reqs {
		if at, ok := first[r.ID]; ok {
			resend = append(resend, r.At.Sub(at))
			continue
		}
		first[r.ID] = r.At
	}
	b.ReportMetric(float64(len(reqs)-len(first))/float64(b.N), "dup/kill")
	if len(resend) > 0 {
		slices.Sort(resend)
		b.ReportMetric(resend[len(resend)/2].Seconds(), "resend-p50-s")
		b.ReportMetric(resend[len(resend)-1].Seconds(), "resend-max-s")
	}
	if len(first) != notices {
		fmt.Fprintf(os.Stderr, "%d of %d notices reached the receiver\n", len(first), notices)
	}
}
