package testwait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	if !Until(time.Minute, func() bool { return n.Add(1) == 5 }) {
		t.Fatal("Until gave up on a condition that came true")
	}
	if n.Load() != 5 {
		t.Errorf("looked %d times, want 5", n.Load())
	}
}

func TestUntilGivesUpAtItsDeadline(t *testing.T) {
	if Until(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("Until said a condition that never held did")
	}
}
