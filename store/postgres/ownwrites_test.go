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
	defer churn(t)()

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

// churn keeps six connections inserting into another program's table on
// the same server, their short transactions ending all the time, until
// the function it returns is called.
func churn(t *testing.T) func() {
	t.Helper()
	ctx := context.Background()
	schema, other := pgtest.Schema(t) // another program's table on the same server
	pgtest.Exec(t, pgtest.URL(t), `CREATE SCHEMA `+schema)
	pgtest.Exec(t, other, `CREATE TABLE churn (x int)`)
	busy, quit := context.WithCancel(ctx)
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
	return func() { quit(); wg.Wait() }
}

// A tail read after other statements of a ReadTail sees every commit made
// before the transaction began, however busy the server: its horizon is
// reckoned before the snapshot. In a plain Read the same read may stop
// short (the horizon within the snapshot holds back at every transaction
// that ended while it was taken); the test counts those too, as the
// reason for ReadTail.
func TestATailReadAfterOtherStatementsIsWholeOnABusyServer(t *testing.T) {
	st, _ := engine().Create(t, model.DefaultPolicy())
	ctx := context.Background()
	if err := st.Write(ctx, func(tx store.Tx) error {
		return tx.AgentInsert(model.Agent{ID: "a1", Role: "r", Kind: model.KindAgent, Authority: 6,
			Status: model.AgentIdle, RegisteredAt: time.Now().UTC()}, 1)
	}); err != nil {
		t.Fatal(err)
	}
	defer churn(t)()
	tails := func(tx store.Tx) (inbox, recent []model.Notification, count int, err error) {
		if _, err = tx.Agent("a1"); err != nil { // the snapshot is taken here
			return
		}
		if inbox, err = tx.Inbox("a1", 0, 0); err != nil {
			return
		}
		if recent, err = tx.InboxRecent("a1", 0, 1); err != nil {
			return
		}
		count, err = tx.InboxCount("a1", 0)
		return
	}
	const writes = 300
	misses, plainMisses := 0, 0
	for i := range writes {
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
		whole := func(read func(context.Context, func(store.Tx) error) error) bool {
			var inbox, recent []model.Notification
			var count int
			if err := read(ctx, func(tx store.Tx) (err error) { inbox, recent, count, err = tails(tx); return err }); err != nil {
				t.Fatal(err)
			}
			return len(inbox) == i+1 && inbox[i].ID == id && len(recent) == 1 && recent[0].ID == id && count == i+1
		}
		if !whole(st.ReadTail) {
			misses++
		}
		if !whole(st.Read) {
			plainMisses++
		}
	}
	t.Logf("tail reads after another statement that missed the commit just made: ReadTail %d of %d, Read %d of %d",
		misses, writes, plainMisses, writes)
	if misses > 0 {
		t.Fatalf("%d of %d ReadTail reads right after a commit missed it", misses, writes)
	}
}
