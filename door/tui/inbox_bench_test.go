package tui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	"github.com/jackc/pgx/v5"
)

// inboxField is the demo field with n more notices to lead-kenji, each
// carrying a rationale of some 400 characters, unread: a file, or with
// ARBITER_BENCH_ENGINE=postgres a schema of ARBITER_TEST_POSTGRES.
func inboxField(b *testing.B, n int) string {
	b.Helper()
	path := demoField(b)
	ctx := context.Background()
	if os.Getenv("ARBITER_BENCH_ENGINE") == "postgres" {
		path = pgtest.Field(b)
		st, err := arbiterfield.Create(ctx, path, demo.Policy())
		if err != nil {
			b.Fatal(err)
		}
		err = demo.Populate(ctx, review.New(st).WithClock(demo.Clock(steppingClock(screenNow))))
		st.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	st, err := arbiterfield.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	why := strings.Repeat("Fourteen nightly runs outweigh a one-day re-run, and the gate is a number written down before. ", 4)
	events := []string{model.EventConflictResolved, model.EventConflictEscalated, model.EventVoteOpened, model.EventVoteClosed}
	start := time.Now()
	err = st.Write(ctx, func(tx store.Tx) error {
		for i := range n {
			c := fmt.Sprintf("conflict-%03d", 1+i%18)
			if _, err := tx.NotificationInsert(model.Notification{AgentID: "lead-kenji", Event: events[i%len(events)],
				Epoch: int64(200 + i), RelevanceScore: 1, ConflictID: &c, RequiresAction: i%3 == 0,
				Summary:   fmt.Sprintf("%s resolved by ops-maya (authority): mem-%03d prevails. Why: %s", c, i%90, why),
				CreatedAt: screenNow.Add(-time.Duration(n-i) * time.Minute)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d notices in %s", n, time.Since(start).Round(time.Millisecond))
	if os.Getenv("ARBITER_BENCH_ENGINE") == "postgres" {
		// As autovacuum would soon after: the planner's figures of the
		// table that grew.
		c, err := pgx.Connect(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "ANALYZE notifications"); err != nil {
			b.Fatal(err)
		}
	}
	return path
}

// BenchmarkInboxFirstFrame is the inbox key of a person with 10,000
// unread notices, from the key to the frame: the newest page read (and
// the counts), the frame drawn, its notices wrapped for the first time.
func BenchmarkInboxFirstFrame(b *testing.B) {
	path := inboxField(b, 10_000)
	st, err := arbiterfield.Open(context.Background(), path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	m := New(review.New(st), Options{Field: path, As: "lead-kenji", Theme: "dark", Now: func() time.Time { return screenNow }})
	m.Update(benchSize)
	var frame string
	var times []time.Duration
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		m.inbox = inboxState{} // nothing drawn before
		t := time.Now()
		_, cmd := m.Update(keyMsg("i"))
		m.Update(cmd()) // the page; marking it read is left out, so that every round reads 10,000 unread
		frame = m.View().Content
		times = append(times, time.Since(t))
		m.Update(keyMsg("esc"))
	}
	benchmetrics.Percentiles(b, times)
	if !strings.Contains(frame, "● 100") || !strings.Contains(frame, "Why: Fourteen") {
		b.Fatalf("the first frame shows no inbox:\n%s", frame)
	}
}
