package sqlite

import (
	"context"
	"os"
	"sync"
)

// walCheckpointBytes is how large the write-ahead log grows before it is
// copied back into the field: 16 MB, four times SQLite's default. Each
// checkpoint costs two fsyncs however little it copies, and decisions
// rewrite the same pages (indexes, counts, the clock), so fewer, larger
// checkpoints copy less in all; a decision made while one runs is what
// makes the slowest 1 %. Merges back to back (BenchmarkMerge/10k, three
// runs on a quiet machine): p99 4.9-5.4 ms at 4 MB, 3.8-4.0 ms at 16 MB.
const walCheckpointBytes = 4000 * 4096

// walBacklogBytes is how large the log may grow while writes follow each
// other without a pause. The log restarts from its beginning only when a
// checkpoint has copied all of it before the next write begins, which a
// checkpoint running beside back-to-back writes never does; past this
// size the writer checkpoints itself and empties the log (most of it is
// already copied by then).
const walBacklogBytes = 4 * walCheckpointBytes

// checkpointer copies the write-ahead log back into the field on a
// goroutine of its own. SQLite's automatic checkpoint, which arbiter turns
// off on its connections (wal_autocheckpoint 0), runs inside the commit
// that takes the log past 1,000 pages: on a large field every ~70th
// decision waited 10-15 ms for it (two fsyncs), which was the whole of the
// 99th percentile. Between decisions made by people the checkpointer
// catches up and the log restarts; under a burst of writes see
// walBacklogBytes. The log is truncated when it restarts
// (journal_size_limit 0), so that its size says how much it holds.
type checkpointer struct {
	wake chan struct{}
	done chan struct{}
	once sync.Once
	// running is held by the checkpoint under way: SQLite runs one at a
	// time and answers a second with SQLITE_BUSY at once, not waiting.
	running sync.Mutex
}

func (s *Store) startCheckpointer() {
	c := &checkpointer{wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.ckpt = c
	go func() {
		defer close(c.done)
		for range c.wake {
			// PASSIVE copies what no reader still needs and never waits
			// for a lock: writers and readers go on meanwhile. A failure
			// leaves the log as it is, to be copied next time or when the
			// field closes.
			c.running.Lock()
			s.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
			c.running.Unlock()
		}
	}()
}

// wrote is told of every committed write; a log past the threshold wakes
// the checkpointer, one past the backlog is checkpointed at once.
func (s *Store) wrote(ctx context.Context) {
	if s.ckpt == nil {
		return
	}
	fi, err := os.Stat(s.path + "-wal")
	switch {
	case err != nil || fi.Size() < walCheckpointBytes:
	case fi.Size() >= walBacklogBytes:
		// After the checkpoint under way, TRUNCATE copies the rest of
		// the log, waiting (busy_timeout) for readers still on it, and
		// empties it.
		s.ckpt.running.Lock()
		s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
		s.ckpt.running.Unlock()
	default:
		select {
		case s.ckpt.wake <- struct{}{}:
		default: // already awake
		}
	}
}

// stopCheckpointer waits for a checkpoint under way. The last connection
// to close copies what is left, as SQLite always does.
func (s *Store) stopCheckpointer() {
	if s.ckpt == nil {
		return
	}
	s.ckpt.once.Do(func() { close(s.ckpt.wake) })
	<-s.ckpt.done
}
