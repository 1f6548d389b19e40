package decisions_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"arbiter/internal/decisions"
)

// Appends that come at once take turns under the file's lock: every
// message lands whole, each with an epoch of its own.
func TestAppendsAtOnceTakeTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if _, err := decisions.Append(path, message(t, fmt.Sprintf("m%d", i)), 0); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	file, err := decisions.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var epochs []int64
	for _, m := range file.Messages {
		epochs = append(epochs, m.Envelope.Epoch)
	}
	slices.Sort(epochs)
	if len(epochs) != n || file.TornLine != 0 || epochs[0] != 1 || epochs[n-1] != n || len(slices.Compact(epochs)) != n {
		t.Errorf("the file holds %d messages with epochs %v (torn line %d), want %d with epochs 1 to %d", len(file.Messages), epochs, file.TornLine, n, n)
	}
}
