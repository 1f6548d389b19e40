package review_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// The benchmark field: 100k units, 10k conflicts between pairs of them,
// 15% escalated and 15% put to a vote (the review queue, ~3k rows), 5%
// resolved, the rest detected. 80k further units support conflict units
// at random, so evidence and supporter queries have work to do. Every unit
// has its RECORD event, every conflict its DETECT event and notifications.
const (
	benchUnits     = 100_000
	benchConflicts = 10_000
	benchQuorum    = 5
)

// benchField is built once per test process and copied for each benchmark.
var benchField struct {
	once     sync.Once
	dir      string
	path     string
	took     time.Duration
	err      error
	detected []string // conflict ids, in order
	voting   []string
	queue    int // escalated + pending_vote
}

// TestMain runs the package's tests on SQLite and on PostgreSQL
// (reviewtest.Main).
func TestMain(m *testing.M) {
	code := rt.Main(m)
	if benchField.dir != "" {
		os.RemoveAll(benchField.dir)
	}
	os.Exit(code)
}

// benchService returns the rules over a fresh copy of the benchmark field.
func benchService(b *testing.B) *review.Service {
	b.Helper()
	benchField.once.Do(buildBenchField)
	if benchField.err != nil {
		b.Fatalf("build the benchmark field: %v", benchField.err)
	}
	path := filepath.Join(b.TempDir(), "field.db")
	if err := benchmetrics.CopyFile(benchField.path, path); err != nil {
		b.Fatal(err)
	}
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	b.Logf("field: %d units, %d conflicts (%d detected, %d in the review queue); built in %s",
		benchUnits, benchConflicts, len(benchField.detected), benchField.queue, benchField.took.Round(time.Millisecond))
	return review.New(st)
}

func buildBenchField() {
	start := time.Now()
	dir, err := os.MkdirTemp("", "arbiter-bench-")
	if err != nil {
		benchField.err = err
		return
	}
	benchField.dir, benchField.path = dir, filepath.Join(dir, "field.db")
	benchField.err = buildField(benchField.path)
	benchField.took = time.Since(start)
}

// buildField writes the benchmark field in a few large transactions with
// the store's bulk writer (statements prepared once): rows as RECORD,
// MERGE and votes would leave them, without running the rules per row.
func buildField(path string) error {
	ctx := context.Background()
	pol := rt.Policy()
	pol.Quorum, pol.Tie = benchQuorum, model.TieStay
	st, err := field.Create(ctx, path, pol)
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now().UTC()
	rng := uint64(42)
	next := func(n int) int { // xorshift: the same field every time
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}

	authors := []model.Agent{}
	err = st.Write(ctx, func(tx store.Tx) error {
		for _, a := range rt.Agents {
			if a.Kind == "" {
				a.Kind = model.KindAgent
			}
			a.Status, a.RegisteredAt = model.AgentIdle, now
			if err := tx.AgentInsert(a, 0); err != nil {
				return err
			}
		}
		for i := range 40 {
			a := model.Agent{ID: fmt.Sprintf("agent-%02d", i), Role: []string{"researcher", "analyst", "planner"}[i%3],
				Kind: model.KindAgent, Authority: 4 + 2*(i%2), Status: model.AgentIdle, RegisteredAt: now}
			if err := tx.AgentInsert(a, 0); err != nil {
				return err
			}
			authors = append(authors, a)
		}
		return nil
	})
	if err != nil {
		return err
	}

	// Units 1..2*benchConflicts are the conflict pairs (A odd, B even); the
	// rest are findings and observations, a third supporting a pair unit.
	pairs := 2 * benchConflicts
	status := func(i int) model.ConflictStatus {
		switch i % 20 {
		case 0, 1, 2:
			return model.StatusEscalated
		case 3, 4, 5:
			return model.StatusPendingVote
		case 6:
			return model.StatusResolved
		}
		return model.StatusDetected
	}
	recordedBy := make([]string, pairs+1) // the author of each pair unit, by seq
	const perTx = 25_000
	for from := 1; from <= benchUnits; from += perTx {
		err := bulk(ctx, st, func(bk store.Bulk) error {
			for seq := from; seq < from+perTx && seq <= benchUnits; seq++ {
				a := authors[next(len(authors))]
				if seq <= pairs {
					recordedBy[seq] = a.ID
				}
				score := 0.4 + float64(next(59))/100
				u := model.Unit{ID: fmt.Sprintf("mem-%03d", seq), Mode: model.ModeCommitted, Type: model.TypeFinding,
					Content: fmt.Sprintf("Finding %d: the %s of service %d is %d ms at p99.", seq,
						[]string{"latency", "error rate", "queue depth"}[seq%3], next(200), 50+next(900)),
					Intent:     model.Intent{Purpose: "report a measurement"},
					Confidence: model.Confidence{Score: &score, Reasoning: "from the dashboards"},
					Source:     model.Source{AgentID: a.ID, AgentRole: a.Role, Timestamp: now},
					Status:     model.UnitActive, Epoch: int64(seq)}
				if seq <= pairs {
					i := (seq - 1) / 2
					if seq%2 == 0 {
						u.Relations = []model.Relation{{Type: model.RelContradicts, TargetID: fmt.Sprintf("mem-%03d", seq-1)}}
						score = 0.3 // A (0.40..0.98) always outweighs B
					}
					switch status(i) {
					case model.StatusResolved:
						if seq%2 == 1 {
							u.Status = model.UnitSuperseded
						}
					default:
						u.Status = model.UnitContested
					}
				} else {
					u.Type = model.TypeObservation
					if next(3) == 0 {
						u.Relations = []model.Relation{{Type: model.RelSupports, TargetID: fmt.Sprintf("mem-%03d", 1+next(pairs))}}
					}
				}
				if err := bk.Unit(int64(seq), u); err != nil {
					return err
				}
				if err := bk.Event(model.Event{Epoch: u.Epoch, Operation: "RECORD", AgentID: a.ID,
					UnitID: &u.ID, At: now, Payload: []byte(`{}`)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}

	epoch := int64(benchUnits)
	err = bulk(ctx, st, func(bk store.Bulk) error {
		for i := range benchConflicts {
			a, b := fmt.Sprintf("mem-%03d", 2*i+1), fmt.Sprintf("mem-%03d", 2*i+2)
			byA, byB := recordedBy[2*i+1], recordedBy[2*i+2]
			c := model.Conflict{ID: fmt.Sprintf("conflict-%03d", i+1), Type: model.ConflictTypes[i%4],
				Status: status(i), UnitA: a, UnitB: b, DetectedBy: model.DetectedExplicit, DetectedAt: now,
				Description: fmt.Sprintf("%s (%s) contradicts %s (%s)", b, byB, a, byA),
				Epoch:       int64(2*i + 2)}
			step := &model.Escalation{By: rt.Senior1, Reason: "needs people", Epoch: epoch, At: now}
			switch c.Status {
			case model.StatusEscalated:
				c.Escalation = step
			case model.StatusPendingVote:
				c.VoteOpened = step
			case model.StatusResolved:
				c.Resolution = &model.Resolution{Strategy: model.LastWriteWins, WinnerID: &b, Rationale: "newest",
					ResolvedBy: rt.Senior1, EpochResolved: epoch, ResolvedAt: now}
			}
			c.Version = 1
			if c.Status != model.StatusDetected {
				c.Version = 2 // decided once
			}
			if err := bk.Conflict(int64(i+1), c); err != nil {
				return err
			}
			if err := bk.Event(model.Event{Epoch: c.Epoch, Operation: "DETECT", AgentID: byB,
				ConflictID: &c.ID, UnitID: &b, At: now, Payload: []byte(`{}`)}); err != nil {
				return err
			}
			for _, who := range []string{byA, byB} {
				if err := bk.Notification(model.Notification{AgentID: who, Event: model.EventConflictDetected, Epoch: c.Epoch,
					RelevanceScore: 1, Summary: c.Description, MemoryUnitID: &b, ConflictID: &c.ID,
					RequiresAction: true, CreatedAt: now}); err != nil {
					return err
				}
			}
			if c.Status != model.StatusDetected {
				if err := bk.Event(model.Event{Epoch: epoch, Operation: "MERGE", AgentID: rt.Senior1,
					ConflictID: &c.ID, At: now, Payload: []byte(`{}`)}); err != nil {
					return err
				}
			}
			switch c.Status {
			case model.StatusDetected:
				benchField.detected = append(benchField.detected, c.ID)
			case model.StatusPendingVote:
				benchField.voting = append(benchField.voting, c.ID)
				benchField.queue++
				for _, v := range []string{rt.Lead1, rt.Lead2} {
					if err := bk.Ballot(model.Ballot{ConflictID: c.ID, VoterID: v, Choice: a, Rationale: "A is better sourced",
						Epoch: epoch, CastAt: now}); err != nil {
						return err
					}
				}
			case model.StatusEscalated:
				benchField.queue++
			}
			epoch++
		}
		return nil
	})
	if err != nil {
		return err
	}
	return st.Write(ctx, func(tx store.Tx) error { _, err := tx.EpochWitness(epoch); return err })
}

// bulk runs fn with the store's bulk writer in one write transaction.
func bulk(ctx context.Context, st store.Field, fn func(store.Bulk) error) error {
	return st.Write(ctx, func(tx store.Tx) error {
		bk, err := tx.Bulk()
		if err != nil {
			return err
		}
		if err := fn(bk); err != nil {
			bk.Close()
			return err
		}
		return bk.Close()
	})
}

func BenchmarkListReviewQueue(b *testing.B) {
	svc := benchService(b)
	q := model.ListQuery{Statuses: model.ReviewStatuses}
	var rows int
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		list, err := svc.List(context.Background(), q)
		if err != nil {
			b.Fatal(err)
		}
		rows = len(list)
	}
	if rows != benchField.queue {
		b.Fatalf("the review queue has %d rows, want %d", rows, benchField.queue)
	}
	b.ReportMetric(float64(rows), "rows/op")
}

func BenchmarkListReviewPage(b *testing.B) {
	svc := benchService(b)
	q := model.ListQuery{Statuses: model.ReviewStatuses, Limit: 100}
	i := 0
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		q.Offset = (i * 100) % benchField.queue
		i++
		list, err := svc.List(context.Background(), q)
		if err != nil || len(list) == 0 {
			b.Fatalf("page at %d: %d rows, %v", q.Offset, len(list), err)
		}
	}
}

func BenchmarkListSearch(b *testing.B) {
	svc := benchService(b)
	q := model.ListQuery{Statuses: model.ReviewStatuses, Search: "agent-07", Limit: 100}
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		if _, err := svc.List(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDetail(b *testing.B) {
	svc := benchService(b)
	i := 0
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		id := benchField.voting[i%len(benchField.voting)]
		i++
		d, err := svc.Detail(context.Background(), id)
		if err != nil || len(d.Ballots) == 0 {
			b.Fatalf("detail %s: %d ballots, %v", id, len(d.Ballots), err)
		}
	}
}

func BenchmarkMerge(b *testing.B) {
	svc := benchService(b)
	detected := benchField.detected
	i := 0
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		if i == len(detected) {
			b.Fatalf("only %d detected conflicts to decide; use -benchtime=%dx or less", len(detected), len(detected))
		}
		id := detected[i]
		a := fmt.Sprintf("mem-%03d", 2*conflictNumber(id)-1)
		i++
		resp, err := svc.Merge(context.Background(), rt.Senior1, req(id, model.ConfidenceWeighted, a, "A is surer"))
		if err != nil || resp.Status != model.StatusResolved {
			b.Fatalf("merge %s: %+v, %v", id, resp.Status, err)
		}
	}
}

func BenchmarkVote(b *testing.B) {
	svc := benchService(b)
	voting := benchField.voting
	// Two ballots stand on each vote; lead-3 and senior-1 add theirs, then
	// change them: four ballots never reach the quorum of five.
	voters := []string{rt.Lead3, rt.Senior1}
	i := 0
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		id := voting[i%len(voting)]
		voter := voters[(i/len(voting))%len(voters)]
		choice := []string{"A", "B"}[(i/(2*len(voting)))%2]
		i++
		resp, err := svc.Vote(context.Background(), voter, model.VoteRequest{ConflictID: id, Choice: choice, Rationale: "benchmark"})
		if err != nil || resp.Closed {
			b.Fatalf("vote on %s: closed %v, %v", id, resp.Closed, err)
		}
	}
}

func conflictNumber(id string) int {
	var n int
	fmt.Sscanf(id, "conflict-%d", &n)
	return n
}
