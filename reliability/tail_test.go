package reliability

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/jackc/pgx/v5"
)

// TestTailingReadersSeeEveryCommitOnceInOneOrder runs eight processes
// recording contradicting units as fast as they go — on PostgreSQL they
// commit in parallel, their ids in no commit order — while readers here
// tail every agent's outbox page by page (as inbox --since and the MCP
// server do), tail the log of events by the recipe of
// docs/field-format.md, and follow the change number (as the screen
// does). Once the writers are done and the readers have caught up, each
// reader's sequence must be the final one read whole: nothing skipped,
// nothing twice, nothing in another order.
func TestTailingReadersSeeEveryCommitOnceInOneOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	if !rt.OnPostgres() {
		t.Skip("on PostgreSQL, whose writers commit in parallel (a file has one writer at a time)")
	}
	run := 6 * time.Second
	if d := soak(t); d > 0 {
		run = d / 2
	}
	f := rt.New(t, rt.Policy())
	path := f.Path
	until := time.Now().Add(run)
	var procs []*process
	for i := range 8 {
		procs = append(procs, startWorker(t, "writer", path, until, 100+i, 400))
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	outboxes := map[string]*[]int64{}
	for _, a := range rt.Agents {
		seen := &[]int64{}
		outboxes[a.ID] = seen
		st := openReader(t, path)
		wg.Go(func() { tailOutbox(t, ctx, st, a.ID, seen) })
	}
	var log []int64
	wg.Go(func() { tailLog(t, ctx, path, &log) })
	var changes []int64
	st := openReader(t, path)
	wg.Go(func() { followChanges(t, ctx, st, &changes) })

	for _, p := range procs {
		select {
		case err := <-p.exited:
			if err != nil {
				t.Errorf("writer: %v\n%s", err, tail(p.output()))
			}
		case <-time.After(run + time.Minute):
			p.cmd.Process.Kill()
			t.Fatalf("a writer did not stop")
		}
	}
	// Every write has committed: the readers read to the end, then stop.
	stop()
	wg.Wait()

	final := openReader(t, path)
	total := 0
	for agent, seen := range outboxes {
		var whole []int64
		if err := final.Read(context.Background(), func(tx store.Tx) error {
			ns, err := tx.Inbox(agent, 0, 0)
			for _, n := range ns {
				whole = append(whole, n.ID)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(*seen, whole) {
			t.Errorf("%s's outbox tailed page by page: %d notifications %v\nread whole at the end: %d %v",
				agent, len(*seen), head(*seen), len(whole), head(whole))
		}
		total += len(whole)
	}
	whole, _ := pageOfLog(t, connect(t, path), "0", 0, 0)
	if !slices.Equal(log, whole) {
		t.Errorf("the log tailed: %d events %v\nread whole at the end: %d %v\nfirst difference: %s",
			len(log), head(log), len(whole), head(whole), firstDifference(log, whole))
	}
	last, err := final.Changed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 || changes[len(changes)-1] != last {
		t.Errorf("the change number followed %d values, ending at %v; the field's is %d", len(changes), tailOf(changes), last)
	}
	if total == 0 || len(whole) == 0 {
		t.Fatalf("the writers wrote %d notifications and %d events", total, len(whole))
	}
	t.Logf("8 writers for %s: %d events and %d notifications, each read once, in order, by %d readers",
		run, len(whole), total, len(outboxes)+2)
}

func openReader(t *testing.T, path string) store.Field {
	t.Helper()
	st, err := field.Open(context.Background(), path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// tailOutbox reads agent's outbox after the last notification it read,
// a page at a time, until ctx ends, and one last time after.
func tailOutbox(t *testing.T, ctx context.Context, st store.Field, agent string, seen *[]int64) {
	var since int64
	for empty := 0; empty < drained; {
		var page []int64
		err := st.Read(context.Background(), func(tx store.Tx) error {
			ns, err := tx.Inbox(agent, since, 25)
			for _, n := range ns {
				page = append(page, n.ID)
			}
			return err
		})
		if err != nil {
			t.Errorf("%s's outbox: %v", agent, err)
			return
		}
		*seen = append(*seen, page...)
		if len(page) > 0 {
			since = page[len(page)-1]
			empty = 0
			continue
		}
		if ctx.Err() != nil {
			empty++
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// drained is how many empty pages in a row, once the writers are done,
// end a tail: the horizon counts a transaction that ends as it is
// reckoned, any transaction on the server, as one that may have written
// the field, so one empty page may only mean a moment's wait.
const drained = 5

// tailLog follows the log as a program of the team's would
// (docs/field-format.md, "Reading the log as it grows").
func tailLog(t *testing.T, ctx context.Context, path string, log *[]int64) {
	c := connect(t, path)
	xid, id := "0", int64(0)
	for empty := 0; empty < drained; {
		page, lastXID := pageOfLog(t, c, xid, id, 100)
		*log = append(*log, page...)
		if len(page) > 0 {
			xid, id = lastXID, page[len(page)-1]
			empty = 0
			continue
		}
		if ctx.Err() != nil {
			empty++
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func connect(t *testing.T, path string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// pageOfLog reads the log after (xid, id), at most limit events (0: all),
// and returns their ids and the last one's xid: the page of
// docs/field-format.md, in its two statements at READ COMMITTED (the
// horizon, then the rows below it), so that only the field's writes still
// running hold it back, not the other transactions of a busy server.
func pageOfLog(t *testing.T, c *pgx.Conn, xid string, id int64, limit int) ([]int64, string) {
	ctx := context.Background()
	var h string
	if err := c.QueryRow(ctx, `SELECT tail_horizon_ahead()::text`).Scan(&h); err != nil {
		t.Error(err)
		return nil, xid
	}
	// The xid's text goes out under another name: ORDER BY xid would
	// otherwise sort by that output column, as text ("1000" before
	// "726"), once the server's transaction ids gain a digit.
	q := `SELECT id, xid::text AS xid_text FROM events WHERE xid < $3::xid8 AND (xid, id) > ($1::xid8, $2) ORDER BY xid, id`
	args := []any{xid, id, h}
	if limit > 0 {
		q += ` LIMIT $4`
		args = append(args, limit)
	}
	rows, err := c.Query(ctx, q, args...)
	if err != nil {
		t.Error(err)
		return nil, xid
	}
	var ids []int64
	last := xid
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n, &last); err != nil {
			t.Error(err)
			return nil, xid
		}
		ids = append(ids, n)
	}
	if err := rows.Err(); err != nil {
		t.Error(err)
	}
	return ids, last
}

// followChanges waits for each change of the field, as the screen does,
// keeping every number it sees.
func followChanges(t *testing.T, ctx context.Context, st store.Field, changes *[]int64) {
	n, ok := st.(store.Notifier)
	if !ok {
		t.Errorf("a field on PostgreSQL that cannot wait for changes")
		return
	}
	v, err := st.Changed(ctx)
	if err != nil {
		t.Errorf("Changed: %v", err)
		return
	}
	*changes = append(*changes, v)
	for ctx.Err() == nil {
		next, err := n.WaitChange(ctx, v)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			t.Errorf("WaitChange: %v", err)
			return
		}
		if next == v {
			t.Errorf("WaitChange returned the number it was given, %d", v)
		}
		v = next
		*changes = append(*changes, v)
	}
	// One last reading, as a screen would after the writers stopped.
	if v, err := st.Changed(context.Background()); err == nil && v != (*changes)[len(*changes)-1] {
		*changes = append(*changes, v)
	}
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 12)] }

func tailOf(ids []int64) []int64 { return ids[max(0, len(ids)-3):] }

// firstDifference says where two sequences part.
func firstDifference(a, b []int64) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %v against %v", i, a[i:min(len(a), i+5)], b[i:min(len(b), i+5)])
		}
	}
	return fmt.Sprintf("one ends at %d", min(len(a), len(b)))
}
