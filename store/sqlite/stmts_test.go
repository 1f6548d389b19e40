package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// More readers at once than the pool has connections, each meeting a
// query never seen before (a filter typed a letter at a time gives each
// keystroke its own SQL), all get their answer: preparing a new query
// never waits for a second connection while holding one.
func TestConcurrentReadersOfNewQueriesAllFinish(t *testing.T) {
	ctx := context.Background()
	st, err := Create(ctx, filepath.Join(t.TempDir(), "field.db"), model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const readers = 24
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			words := strings.TrimSpace(strings.Repeat("word ", i+1)) // i+1 words: a query of its own
			errs <- st.Read(ctx, func(tx store.Tx) error {
				_, err := tx.ConflictList(model.ListQuery{Search: words, Limit: 10})
				time.Sleep(20 * time.Millisecond) // the point: hold the connection while the others arrive, so that each prepares on its own
				if err != nil {
					return err
				}
				_, err = tx.ConflictList(model.ListQuery{Search: words + " more", Limit: 10})
				return err
			})
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	close(start)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("readers of new queries are still waiting after 30 s: the pool deadlocked")
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
