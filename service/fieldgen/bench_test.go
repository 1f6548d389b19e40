package fieldgen_test

// Decisions on large fields (docs/performance.md, "A million-unit
// field"): MERGE and VOTE through the rules, each one transaction, timed
// one by one for their percentiles. The 10k-unit field is built here; the
// million-unit one is a copy of ARBITER_BENCH_FIELD (built by `arbiter gen`,
// as scripts/perf.sh does), skipped when that is not set; the one on
// PostgreSQL is ARBITER_BENCH_POSTGRES itself.
//
//	go test ./service/fieldgen -run '^$' -bench . -benchtime 1000x

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/fieldgen/benchfield"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
)

// benchFields are the fields the decisions are measured on.
func benchFields(b *testing.B, run func(b *testing.B, svc *review.Service)) {
	benchfield.Fields(b, func(b *testing.B, path string) { run(b, service(b, path)) })
	b.Run("1M-postgres", func(b *testing.B) {
		// A field on a server is not copied: the benchmark decides on it
		// (1,000 merges take 1,000 of its 5,000 escalated conflicts).
		name := os.Getenv("ARBITER_BENCH_POSTGRES")
		if name == "" {
			b.Skip("set ARBITER_BENCH_POSTGRES to a field on PostgreSQL built by `arbiter gen` (scripts/perf-postgres.sh does)")
		}
		run(b, service(b, name))
	})
}

func service(b *testing.B, path string) *review.Service {
	b.Helper()
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return review.New(st)
}

// queue lists the conflicts of status s, oldest first.
func queue(b *testing.B, svc *review.Service, s model.ConflictStatus) []model.ConflictSummary {
	b.Helper()
	rows, err := svc.List(context.Background(), model.ListQuery{Statuses: []model.ConflictStatus{s}})
	if err != nil {
		b.Fatal(err)
	}
	return rows
}

// BenchmarkMerge is the human operator deciding escalated conflicts, as
// the review screen does (naming the version read): dismiss, last write
// wins, synthesis, authority and confidence in turn.
func BenchmarkMerge(b *testing.B) {
	benchFields(b, func(b *testing.B, svc *review.Service) {
		ctx := context.Background()
		todo := queue(b, svc, model.StatusEscalated)
		strategies := []model.Strategy{model.Dismiss, model.LastWriteWins, model.Synthesis, model.Authority, model.ConfidenceWeighted}
		var times []time.Duration
		i := 0
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			if i == len(todo) {
				b.Fatalf("only %d escalated conflicts: use a smaller -benchtime", len(todo))
			}
			c := todo[i].Conflict
			s := strategies[i%len(strategies)]
			req := model.MergeRequest{ConflictID: c.ID, Strategy: s, ExpectedVersion: c.Version,
				Resolution: model.MergeResolution{Rationale: "decided in a benchmark"}}
			switch s {
			case model.Synthesis:
				req.Resolution.Synthesis = model.Ptr(fieldgen.Markdown(uint64(i), 600))
			case model.Authority:
				req.Resolution.WinnerID = &c.UnitA
			case model.ConfidenceWeighted:
				b.StopTimer()
				d, err := svc.Detail(ctx, c.ID)
				if err != nil {
					b.Fatal(err)
				}
				pick := model.RulePick(s, d.A.Contender(), d.B.Contender())
				req.Resolution.WinnerID = &pick.WinnerID
				b.StartTimer()
			}
			t := time.Now()
			if _, err := svc.Merge(ctx, fieldgen.Operator, req); err != nil {
				b.Fatalf("merge %s with %s: %v", c.ID, s, err)
			}
			times = append(times, time.Since(t))
			i++
		}
		benchmetrics.Percentiles(b, times)
	})
}

// BenchmarkVote is the leads voting on the conflicts put to a vote, each
// one until its quorum closes it (the closing ballot resolves the
// conflict: the heavier kind).
func BenchmarkVote(b *testing.B) {
	benchFields(b, func(b *testing.B, svc *review.Service) {
		ctx := context.Background()
		type ballot struct{ conflict, voter string }
		var todo []ballot
		for _, c := range queue(b, svc, model.StatusPendingVote) {
			d, err := svc.Detail(ctx, c.ID)
			if err != nil {
				b.Fatal(err)
			}
			left := d.Policy.Quorum - len(d.Ballots)
			for _, l := range fieldgen.Leads {
				if left > 0 && !slices.ContainsFunc(d.Ballots, func(x model.Ballot) bool { return x.VoterID == l }) {
					todo = append(todo, ballot{c.ID, l})
					left--
				}
			}
		}
		var times []time.Duration
		i := 0
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			if i == len(todo) {
				b.Fatalf("only %d ballots to cast: use a smaller -benchtime", len(todo))
			}
			v := todo[i]
			choice := []string{"A", "B"}[i%2]
			t := time.Now()
			if _, err := svc.Vote(ctx, v.voter, model.VoteRequest{ConflictID: v.conflict, Choice: choice,
				Rationale: "voted in a benchmark"}); err != nil {
				b.Fatalf("%s voting on %s: %v", v.voter, v.conflict, err)
			}
			times = append(times, time.Since(t))
			i++
		}
		benchmetrics.Percentiles(b, times)
	})
}

// BenchmarkFilter is a keystroke in the review screen's filter: the first
// page of the queue (as the screen loads it) for a word, matched against
// what the queue shows and the units' text. Words that match a little,
// a lot, and nothing.
func BenchmarkFilter(b *testing.B) {
	benchFields(b, func(b *testing.B, svc *review.Service) {
		ctx := context.Background()
		for _, word := range []string{"t", "th", "thr", "throttle", "vote", "lead-amara", "conflict-09", "mem-123", "xyzzy"} {
			b.Run(word, func(b *testing.B) {
				var times []time.Duration
				n := 0
				defer benchmetrics.CPUPerOp(b)()
				for b.Loop() {
					t := time.Now()
					rows, err := svc.List(ctx, model.ListQuery{Statuses: model.ReviewStatuses, Search: word, Limit: 200})
					if err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t))
					n = len(rows)
				}
				b.ReportMetric(float64(n), "rows")
				benchmetrics.Percentiles(b, times)
			})
		}
	})
}
