package tui

import (
	"strings"
	"testing"
)

// A conflict the field detected is marked in the queue and says why in
// its header: the signal, the score and level, and the two phrases.
func TestADetectedConflictSaysWhy(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "ops-maya", 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("a")
	s.waitFor("showing all statuses", "conflict-021")
	f := s.Frame()
	for _, id := range []string{"conflict-019", "conflict-020", "conflict-021"} {
		line := rowOf(f, id)
		if !strings.Contains(line, "◇ ") {
			t.Errorf("the queue does not mark %s as detected: %q", id, line)
		}
	}
	if line := rowOf(f, "conflict-018"); strings.Contains(line, "◇") {
		t.Errorf("a declared conflict is marked as detected: %q", line)
	}
	openByFilter(s, "conflict-019")
	s.waitFor("Detected by the field: quantity, score", "· A “Keel's settlement batch runs every")
	s.waitFormatted() // the final frame: both units drawn whole
	f = s.waitFor("Keel's settlement batch runs every 15 minutes, each batch", "Keel's settlement batch runs every 60 minutes")
	golden(t, "conflict-detected", f)
}

// rowOf is the line of frame f that holds id.
func rowOf(f, id string) string {
	for _, l := range strings.Split(f, "\n") {
		if strings.Contains(l, id) {
			return l
		}
	}
	return ""
}
