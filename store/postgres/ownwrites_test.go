package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/store"

	"github.com/jackc/pgx/v5"
)

// TestAReaderSeesItsOwnCommitOnABusyServer: on a server where other
// programs' short transactions begin and end all the time, a read right
// after a commit sees it — the inbox holds the notification just written
// and the change number has moved. (Reckoning the tail's horizon in the
// reader's own snapshot held it back at every transaction that ended
// meanwhile: a quarter of such reads missed the commit before it.)
func TestAReaderSeesItsOwnCommitOnABusyServer(t *testing.T) {
	st, _ := engine().Create(t, model.DefaultPolicy())
	ctx := context.Background()
	if err := st.Write(ctx, func(tx store.Tx) error {
		return tx.AgentInsert(model.Agent{ID: "a1", Role: "r", Kind: model.KindAgent, Authority: 6,
			Status: model.AgentIdle, RegisteredAt: time.Now().UTC()}, 1)
	}); err != nil {
		t.Fatal(err)
	}
	schema, other := pgtest.Schema(t) // another program's table on the same server
	pgtest.Exec(t, pgtest.URL(t), `CREATE SCHEMA `+schema)
	pgtest.Exec(t, other, `CREATE TABLE churn (x int)`)
	busy, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	cfg, err := pgx.ParseConfig(other)
	if err != nil {
		t.Fatal(err)
	}
	delete(cfg.RuntimeParams, "search_path") // a pooler refuses it; the table is named in full
	table := pgx.Identifier{schema, "churn"}.Sanitize()
	for range 6 {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer conn.Close(context.Background())
			for busy.Err() == nil {
				conn.Exec(busy, `INSERT INTO `+table+` VALUES (1)`)
			}
		})
	}
	defer func() { stop(); wg.Wait() }()

	misses := 0
	const writes = 300
	for i := range writes {
		before, err := st.Changed(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := st.Write(ctx, func(tx store.Tx) error {
			e, err := tx.EpochTick()
			if err != nil {
				return err
			}
			id, err = tx.NotificationInsert(model.Notification{AgentID: "a1", Event: model.EventConflictDetected, Epoch: e,
				RelevanceScore: 1, Summary: "s", CreatedAt: time.Now().UTC()})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var inbox []model.Notification
		if err := st.Read(ctx, func(tx store.Tx) (err error) { inbox, err = tx.Inbox("a1", 0, 0); return err }); err != nil {
			t.Fatal(err)
		}
		after, err := st.Changed(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(inbox) != i+1 || inbox[len(inbox)-1].ID != id || after == before {
			misses++
		}
	}
	if misses > 0 {
		t.Fatalf("%d of %d reads right after a commit missed it", misses, writes)
	}
}
