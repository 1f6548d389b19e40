package deliver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
)

// BenchmarkNoticeToHook measures how long a notice takes from the commit
// that writes it (the time stamped on the notice in its transaction) to
// its arrival at a real local HTTP receiver, with a
// deliverer running (deliver.Run): each iteration records a
// contradiction, whose detection notice goes to senior-2's hook. It
// reports the 50th and 99th percentiles. One engine per run:
// ARBITER_TEST_ENGINE=sqlite or postgres (docs/performance.md).
func BenchmarkNoticeToHook(b *testing.B) {
	var mu sync.Mutex
	arrived := map[int64]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		var msg struct{ Data deliver.Notice }
		if json.Unmarshal(body, &msg) == nil {
			mu.Lock()
			arrived[msg.Data.ID] = at
			mu.Unlock()
		}
	}))
	defer srv.Close()
	f := rt.New(b, rt.Policy())
	svc := review.New(f.Store)
	if _, err := svc.HookAdd(context.Background(), rt.Operator, model.Hook{ID: model.NewHookID(), AgentID: rt.Senior2,
		URL: srv.URL, Format: deliver.FormatStandard, Events: []string{model.EventConflictDetected}, Secret: deliver.NewSecret(),
		AllowPrivate: true}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- deliver.Run(ctx, f.Store, deliver.Options{}) }()
	b.ResetTimer()
	for range b.N {
		f.Contradict(b, model.ConflictFactual, rt.Side{}, rt.Side{})
	}
	// Every notice to senior-2, and when it was stamped in its
	// transaction, just before the commit: a little more than the time
	// since the commit.
	ns, err := f.Svc.Inbox(context.Background(), rt.Senior2, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	committed := map[int64]time.Time{}
	for _, n := range ns {
		committed[n.ID] = n.CreatedAt
	}
	all := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range committed {
			if _, ok := arrived[id]; !ok {
				return false
			}
		}
		return true
	}
	for end := time.Now().Add(time.Minute); !all(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			break
		}
	}
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	for id, c := range committed {
		a, ok := arrived[id]
		if !ok {
			b.Fatalf("notice %d never arrived", id)
		}
		lat = append(lat, a.Sub(c))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkNoticesWithOneHookHanging measures how long the notices to
// nine hooks take from commit to arrival while a tenth hook's receiver
// hangs (it never answers; the deliverer gives up on a try after the
// send timeout, 20 s): ten hooks for senior-2, each at a real local
// receiver, and a deliverer running (deliver.Run). Each iteration records
// a contradiction, whose detection notice goes to all ten, at 25 a second
// (a busy team: 225 deliveries a second to the nine; unpaced, the
// benchmark's own writes outrun a deliverer on this machine and the
// figures measure the backlog). It reports the 50th and 99th
// percentiles and the longest over the nine answering hooks
// (docs/performance.md).
func BenchmarkNoticesWithOneHookHanging(b *testing.B) {
	var mu sync.Mutex
	arrived := map[[2]int64]time.Time{} // hook's number, notice → when
	f := rt.New(b, rt.Policy())
	svc := review.New(f.Store)
	for i := range 10 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			at := time.Now()
			body, _ := io.ReadAll(r.Body) // first: a server sees its client go only once the body is read
			if i == 0 {
				<-r.Context().Done() // hangs until the deliverer gives up
				return
			}
			var msg struct{ Data deliver.Notice }
			if json.Unmarshal(body, &msg) == nil {
				mu.Lock()
				arrived[[2]int64{int64(i), msg.Data.ID}] = at
				mu.Unlock()
			}
		}))
		defer srv.Close()
		if _, err := svc.HookAdd(context.Background(), rt.Operator, model.Hook{ID: model.NewHookID(), AgentID: rt.Senior2,
			URL: srv.URL, Format: deliver.FormatStandard, Events: []string{model.EventConflictDetected},
			Secret: deliver.NewSecret(), AllowPrivate: true}); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- deliver.Run(ctx, f.Store, deliver.Options{}) }()
	tick := time.NewTicker(40 * time.Millisecond)
	defer tick.Stop()
	b.ResetTimer()
	for range b.N {
		<-tick.C
		f.Contradict(b, model.ConflictFactual, rt.Side{}, rt.Side{})
	}
	// Every detection notice to senior-2, and when it was stamped in its
	// transaction, just before the commit.
	ns, err := f.Svc.Inbox(context.Background(), rt.Senior2, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	committed := map[int64]time.Time{}
	for _, n := range ns {
		if n.Event == model.EventConflictDetected {
			committed[n.ID] = n.CreatedAt
		}
	}
	all := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range committed {
			for i := int64(1); i < 10; i++ {
				if _, ok := arrived[[2]int64{i, id}]; !ok {
					return false
				}
			}
		}
		return true
	}
	for end := time.Now().Add(time.Minute); !all(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			break
		}
	}
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	for id, c := range committed {
		for i := int64(1); i < 10; i++ {
			a, ok := arrived[[2]int64{i, id}]
			if !ok {
				b.Fatalf("notice %d never reached hook %d", id, i)
			}
			lat = append(lat, a.Sub(c))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}
