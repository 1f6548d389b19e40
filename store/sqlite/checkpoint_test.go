package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// The log is copied back in the background, and under back-to-back
// writes it stays within the backlog instead of growing; closing the
// field leaves no log behind.
func TestCheckpointsKeepTheLogSmall(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "field.db")
	st, err := Create(ctx, path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"pad":"` + strings.Repeat("x", 60<<10) + `"}`)
	writes := 6 * walCheckpointBytes / len(payload) // 6 times the threshold
	for i := range writes {
		err := st.Write(ctx, func(tx store.Tx) error {
			e, err := tx.EpochTick()
			if err != nil {
				return err
			}
			_, err = tx.EventAppend(model.Event{Epoch: e, Operation: "TEST", AgentID: "t", Payload: payload, At: time.Now()})
			return err
		})
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		// The backlog, and what is written while a checkpoint catches up.
		if fi.Size() > walBacklogBytes+walBacklogBytes/8 {
			t.Fatalf("after write %d the log holds %d KB, more than the backlog of %d KB", i, fi.Size()>>10, walBacklogBytes>>10)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Errorf("closing the field left its log: %v", err)
	}
	st, err = Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Read(ctx, func(tx store.Tx) error {
		e, err := tx.Epoch()
		if e != int64(writes) {
			t.Errorf("the clock reads %d after %d writes", e, writes)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
