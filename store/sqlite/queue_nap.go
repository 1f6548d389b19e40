//go:build unix && !linux

package sqlite

import (
	"sync/atomic"
	"time"
)

// Elsewhere than Linux (macOS, the BSDs) there is no futex to share
// between processes: a write waiting for its turn naps and looks at its
// bell between naps. A turn is then noticed up to queueNap late, well
// within queueWake, at the cost of a waiter waking a few thousand times
// a second while it waits.

// queueNap is how long a waiting write sleeps between two looks at its
// bell.
const queueNap = 200 * time.Microsecond

// ring does nothing: the sleepers look for themselves.
func ring(*uint32) {}

// sleep waits until bell no longer holds rung, or for at most d.
func sleep(bell *uint32, rung uint32, d time.Duration) {
	until := time.Now().Add(d)
	for atomic.LoadUint32(bell) == rung && time.Now().Before(until) {
		time.Sleep(queueNap)
	}
}
