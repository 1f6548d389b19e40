package review_test

import (
	"context"
	"slices"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

// The filter finds a conflict by anything the queue shows of it and by
// the words of its units' text; every word of a search must match.
func TestSearchMatchesWhatTheQueueShowsAndTheUnitsText(t *testing.T) {
	f := rt.New(t, rt.Policy())
	lab := f.Contradict(t, model.ConflictFactual, rt.Side{Content: "The checkout p99 is **40 ms** in the lab."},
		rt.Side{Content: "Production traces put the checkout p99 at 90 ms; the fraud pipeline throttles it."})
	retry := f.Contradict(t, model.ConflictStrategic, rt.Side{By: rt.Lead1, Content: "Retry webhooks three times."},
		rt.Side{Content: "Retry webhooks five times, with jitter."})
	merge(t, f, rt.Senior1, req(lab.Conflict, model.HumanEscalation, "", "people must look"))
	merge(t, f, rt.Senior1, req(retry.Conflict, model.Vote, "", "the leads know"))

	ctx := context.Background()
	find := func(search string, statuses ...model.ConflictStatus) []string {
		t.Helper()
		rows, err := f.Svc.List(ctx, model.ListQuery{Statuses: statuses, Search: search})
		if err != nil {
			t.Fatalf("search %q: %v", search, err)
		}
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		return ids
	}
	for _, statuses := range [][]model.ConflictStatus{model.ReviewStatuses, nil} {
		for search, want := range map[string][]string{
			"vote":             {retry.Conflict},
			"escalated":        {lab.Conflict},
			lab.B:              {lab.Conflict},
			retry.A:            {retry.Conflict},
			rt.Lead1:           {retry.Conflict},
			"strategic":        {retry.Conflict},
			"throttl":          {lab.Conflict},
			"JITTER":           {retry.Conflict},
			"webhooks jitter":  {retry.Conflict},
			"webhooks lab":     nil,
			"checkout p99":     {lab.Conflict},
			"no-such-word-xyz": nil,
			`"quoted`:          nil,
		} {
			if got := find(search, statuses...); !slices.Equal(got, want) {
				t.Errorf("statuses %v, search %q: %v, want %v", statuses, search, got, want)
			}
		}
	}
}
