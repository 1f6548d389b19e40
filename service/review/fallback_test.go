package review_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

func TestAFallbackFailingHalfWayWritesNothingAndSaysWhy(t *testing.T) {
	// A fallback updates the conflict, tells people, then logs itself.
	// When telling (notifications) or logging (events) fails, the sweep
	// stops there with that error, and the conflict, its units, the
	// clock and the reminders stay as they were.
	for _, fallback := range []string{"dismiss", "last_write_wins", "rework", "escalate:" + operator, "confidence_weighted"} {
		for _, table := range []string{"notifications", "events"} {
			t.Run(fallback+"/"+table, func(t *testing.T) {
				f, svc, clk := highway(t, nil)
				pair, _ := escalate(t, f, svc, &model.Routing{To: owner, Deadline: "2h", Fallback: model.Fallback(fallback)}, nil)
				clk.advance(2 * time.Hour)
				rt.FailInserts(t, f, table)
				before := rt.Snap(t, f.Path)

				rep, err := svc.Sweep(context.Background())

				if err == nil || !strings.Contains(err.Error(), "injected failure") {
					t.Fatalf("the sweep returned %v, want the injected failure", err)
				}
				if len(rep.Actions) != 0 {
					t.Fatalf("the sweep reports %+v for a fallback that failed", rep.Actions)
				}
				if diff := before.Diff(rt.Snap(t, f.Path)); diff != "" {
					t.Fatalf("a failed fallback on %s left:\n%s", pair.Conflict, diff)
				}
			})
		}
	}
}
