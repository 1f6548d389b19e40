package sqlite

import (
	"context"
	"time"
)

// Windows has no line in front of SQLite's write lock (queue.go says
// what the line is for): mapping a file shared between processes works
// differently there, and the line is an optimisation, never needed for
// correctness. Writers poll for SQLite's lock alone (lockwait.go), each
// within its busy timeout, as every writer did before the line existed;
// under a saturating load a wait is then likelier to reach that timeout.

// writeQueue is no line at all.
type writeQueue struct{}

// turn is no place in a line.
type turn struct{}

// openQueue returns no line.
func openQueue(string) *writeQueue { return nil }

func (q *writeQueue) close() {}

// wait lets the write go ahead at once: it takes SQLite's lock as it can.
func (q *writeQueue) wait(context.Context, time.Time) (*turn, error) { return nil, nil }

func (tr *turn) release() {}
