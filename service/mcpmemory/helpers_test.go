package mcpmemory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/mcpmemory/mcpmemtest"
)

// scene is an mcp-memory-service database with one of everything the
// lister must tell apart.
type scene struct {
	db *mcpmemtest.DB
	// Two pairs their lister returns: p99 (older), rate (newer).
	p99Old, p99New   string
	rateOld, rateNew string
	// A pair whose newer side was soft-deleted without its edges.
	delKept, delGone string
	// A pair their resolve settled: edges still there.
	resWinner, resLoser string
	// A memory tagged conflict:unresolved whose partner their delete
	// removed, edges and all.
	stale string
	// Two near-duplicates, related but no conflict.
	dupA, dupB string
	// A memory that supports p99Old.
	supporter string
}

func newScene(t *testing.T, opts ...mcpmemtest.Option) *scene {
	t.Helper()
	return buildScene(mcpmemtest.New(t, opts...))
}

func newSceneAt(t *testing.T, dir string) *scene {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return buildScene(mcpmemtest.NewAt(t, filepath.Join(dir, "sqlite_vec.db")))
}

func buildScene(db *mcpmemtest.DB) *scene {
	s := &scene{db: db}
	s.p99Old = db.Store(mcpmemtest.Memory{Content: "The checkout p99 latency is **40 ms** in the lab.",
		Tags: []string{"perf", " checkout"}, Type: "observation", Metadata: `{"source": "lab run", "runs": 14}`})
	s.supporter = db.Store(mcpmemtest.Memory{Content: "Fourteen nightly lab runs agree on 40 ms.", Tags: []string{"perf"}, Type: "note"})
	db.Relate(s.supporter, s.p99Old, "supports", 0.8)
	s.p99New = db.Store(mcpmemtest.Memory{Content: "The checkout p99 latency is 90 ms in production.",
		Tags: []string{"perf"}, Type: "observation", Metadata: `{"source": "prod traces"}`})
	db.Contradict(s.p99New, s.p99Old, 0.9712, 0.3133)

	s.resLoser = db.Store(mcpmemtest.Memory{Content: "Deploys happen on Fridays.", Tags: []string{"process"}})
	s.resWinner = db.Store(mcpmemtest.Memory{Content: "Deploys never happen on Fridays.", Tags: []string{"process"}})
	db.Contradict(s.resWinner, s.resLoser, 0.96, 0.25)
	db.Resolve(s.resWinner, s.resLoser)

	s.delKept = db.Store(mcpmemtest.Memory{Content: "The cache TTL is 5 minutes."})
	s.delGone = db.Store(mcpmemtest.Memory{Content: "The cache TTL is 50 minutes."})
	db.Contradict(s.delGone, s.delKept, 0.98, 0.21)
	db.MarkDeleted(s.delGone)

	s.stale = db.Store(mcpmemtest.Memory{Content: "Backups run at 02:00 UTC.", Tags: []string{"ops"}})
	gone := db.Store(mcpmemtest.Memory{Content: "Backups run at 04:00 UTC.", Tags: []string{"ops"}})
	db.Contradict(gone, s.stale, 0.97, 0.22)
	db.Delete(gone)

	s.dupA = db.Store(mcpmemtest.Memory{Content: "The team standup is at 9:30."})
	s.dupB = db.Store(mcpmemtest.Memory{Content: "The team stand-up is at 9:30."})
	db.Relate(s.dupA, s.dupB, "related", 0.99)

	s.rateOld = db.Store(mcpmemtest.Memory{Content: "The API rate limit is 100 requests per second.", Tags: []string{"api"}, Type: "decision"})
	s.rateNew = db.Store(mcpmemtest.Memory{Content: "The API rate limit is 250 requests per second.", Tags: []string{"api"}, Type: "decision"})
	db.Contradict(s.rateNew, s.rateOld, 0.955, 0.2)
	return s
}

// open opens the scene's file as maya, at the scene's clock.
func (s *scene) open(t *testing.T, opt Options) *Desk {
	t.Helper()
	if opt.Owner == "" {
		opt.Owner = "maya"
	}
	if opt.Now == nil {
		at := s.db.Clock
		opt.Now = func() time.Time { return at }
	}
	d, err := Open(context.Background(), s.db.Path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// idOf is the conflict id of the pair x, y.
func idOf(x, y string) string { return conflictID(min(x, y), max(x, y), false) }

func wantCode(t *testing.T, err error, code model.Code) *model.Error {
	t.Helper()
	pe, ok := model.AsError(err)
	if !ok || pe.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	return pe
}

func keepReq(id, winner string, s model.Strategy, why string) model.MergeRequest {
	return model.MergeRequest{ConflictID: id, Strategy: s, Resolution: model.MergeResolution{WinnerID: &winner, Rationale: why}}
}
