//go:build unix

package fieldgen_test

// Joining a fork of a large field (docs/performance.md, "Joining a
// fork"): the field is forked, each side records 10,000 units (one in ten
// revising a unit from before the fork, the same ones on both sides,
// differently) and takes 1,000 decisions of escalated conflicts (500 of
// them the same conflicts on both sides, half decided alike), and then
// `arbiter join` runs as its own process, timed, with its peak memory.
//
//	ARBITER_BENCH_FIELD=F go test ./service/fieldgen -run '^$' -bench Join -benchtime 1x -timeout 60m

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/fieldgen/benchfield"
	"arbiter/service/review"
	"arbiter/store/field"
)

const (
	joinSideUnits     = 10_000
	joinSideDecisions = 1_000
)

func BenchmarkJoin(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "arbiter")
	if out, err := exec.Command("go", "build", "-o", bin, "arbiter").CombinedOutput(); err != nil {
		b.Fatalf("building arbiter: %v\n%s", err, out)
	}
	benchfield.Fields(b, func(b *testing.B, path string) {
		ctx := context.Background()
		svc := service(b, path)
		forkPath := filepath.Join(b.TempDir(), "fork.db")
		made, err := field.Create(ctx, forkPath, model.DefaultPolicy())
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := svc.Fork(ctx, fieldgen.Operator, made); err != nil {
			b.Fatal(err)
		}
		b.Logf("fork (a copy of the whole field): %s", time.Since(start).Round(time.Millisecond))
		fork := review.New(made)
		escalated := queue(b, svc, model.StatusEscalated)
		if len(escalated) < joinSideDecisions*3/2 {
			b.Fatalf("only %d escalated conflicts", len(escalated))
		}
		start = time.Now()
		work(b, fork, "ops-rafael", "the fork", escalated[:joinSideDecisions], "A")
		work(b, svc, fieldgen.Operator, "the field", escalated[joinSideDecisions/2:joinSideDecisions*3/2], "B")
		b.Logf("both sides' work: %s", time.Since(start).Round(time.Millisecond))
		if err := made.Close(); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if i > 0 {
				b.Fatal("a join takes fresh fields: run with -benchtime 1x")
			}
			cmd := exec.Command(bin, "--db", path, "--as", fieldgen.Operator, "join", forkPath)
			cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
			t := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(t)
			if err != nil {
				b.Fatalf("join: %v\n%s", err, out)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			b.ReportMetric(took.Seconds(), "join-s")
			b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
			b.Logf("%s", out)
		}
	})
}

// work is one side's work after the fork: joinSideUnits units by by, one
// in ten superseding a unit from before the fork (mem-001, mem-011, …,
// the same on both sides, with this side's text), and a decision of each
// of the conflicts: every other one dismissed, the others decided by
// authority for side winner ("A" or "B").
func work(b *testing.B, svc *review.Service, by, side string, conflicts []model.ConflictSummary, winner string) {
	b.Helper()
	ctx := context.Background()
	score := 0.7
	for i := range joinSideUnits {
		req := model.RecordRequest{Type: model.TypeFinding, Content: fmt.Sprintf("%s learned %d: %s", side, i, fieldgen.Markdown(uint64(i), 300)),
			Intent: model.Intent{Purpose: "work after the fork"}, Confidence: model.Confidence{Score: &score, Reasoning: "benchmark"}}
		if i%10 == 0 {
			req.Relations = []model.Relation{{Type: model.RelSupersedes, TargetID: fmt.Sprintf("mem-%03d", i+1)}}
		}
		if _, err := svc.Record(ctx, by, req); err != nil {
			b.Fatalf("%s recording: %v", side, err)
		}
	}
	for i, c := range conflicts {
		req := model.MergeRequest{ConflictID: c.Conflict.ID, Strategy: model.Dismiss,
			Resolution: model.MergeResolution{Rationale: side + " decided"}}
		if i%2 == 1 {
			w := c.Conflict.UnitA
			if winner == "B" {
				w = c.Conflict.UnitB
			}
			req.Strategy, req.Resolution.WinnerID = model.Authority, &w
		}
		if _, err := svc.Merge(ctx, by, req); err != nil {
			b.Fatalf("%s deciding %s: %v", side, c.Conflict.ID, err)
		}
	}
}
