// Package testwait is how arbiter's tests wait: for the condition they
// need, up to a deadline generous enough for a loaded machine, never for
// a fixed time. A condition that holds at once costs nothing; one that
// takes a while is looked at often, then less often.
package testwait

import (
	"testing"
	"time"
)

// Deadline is how long a test waits for a condition before it fails. It
// is only ever reached by a test that fails, so it can be long: a shared
// two-core machine running several suites makes seconds of what takes
// milliseconds alone.
const Deadline = 90 * time.Second

// Until reports whether cond holds within d, looking at once and then
// every few milliseconds (at most every 50).
func Until(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	pause := time.Millisecond
	for {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return cond()
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// For waits until cond holds, failing t, which says what it waited for,
// if it does not within Deadline.
func For(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Until(Deadline, cond) {
		t.Fatalf("waited %s for %s", Deadline, what)
	}
}
