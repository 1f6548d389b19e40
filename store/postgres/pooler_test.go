package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/postgres"

	"github.com/jackc/pgx/v5"
)

// The tests of a field behind pgbouncer in transaction pooling mode run
// where .ci/run starts one (pgtest.PoolerEnv); the conformance suite and
// the CLI's tour run through it there too.

func openPooled(t *testing.T, name string, opt store.Options) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), pgtest.Pooler(t, name), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Behind a pooler the field finds the pooler, takes many writers at once
// (no statement of one client's is met on another's server connection),
// and, with no listen_db, polls for changes and says so.
func TestAFieldBehindAPoolerWorksAndSaysItPolls(t *testing.T) {
	f := newField(t)
	direct := f.Store.(*postgres.Store)
	if direct.Pooled() || direct.Polling() != "" {
		t.Fatalf("a direct connection: pooled %v, polling %q", direct.Pooled(), direct.Polling())
	}
	st := openPooled(t, f.Path, store.Options{})
	if !st.Pooled() {
		t.Fatal("pgbouncer was not found in front of the server")
	}
	if p := st.Polling(); !strings.Contains(p, "pooler") || !strings.Contains(p, "every 2 s") {
		t.Fatalf("Polling() = %q, want it to say the field is read every 2 s behind a pooler", p)
	}
	svc := review.New(st)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if _, err := svc.Record(ctx, rt.Scout, finding(fmt.Sprintf("writer %d, unit %d", w, i))); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a write through the pooler: %v", err)
	}
	var units int64
	if err := st.Read(ctx, func(tx store.Tx) error {
		var err error
		units, err = tx.UnitCount()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if units != 40 {
		t.Fatalf("%d units through the pooler, want 40", units)
	}

	// Another process's commit is seen by polling.
	v0, err := st.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := waitChange(t, st, v0)
	f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if v := <-got; v == v0 {
		t.Fatalf("WaitChange returned the epoch it was given, %d", v)
	}
}

// With listen_db the field behind a pooler listens on that direct
// connection: a LISTEN session on the server, no polling.
func TestListenDBCarriesTheChangesBehindAPooler(t *testing.T) {
	f := newField(t)
	st := openPooled(t, f.Path, store.Options{ListenDB: f.Path})
	ctx := context.Background()
	v0, err := st.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := waitChange(t, st, v0)
	schema := st.Schema()
	channel := pgx.Identifier{"arbiter " + schema}.Sanitize()
	testwait.For(t, "a session to LISTEN on "+channel, func() bool { return listening(t, f.Path, channel) })
	if p := st.Polling(); p != "" {
		t.Fatalf("Polling() = %q with listen_db", p)
	}
	f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if v := <-got; v == v0 {
		t.Fatalf("WaitChange returned the epoch it was given, %d", v)
	}
}

// A listen_db that goes through the pooler too cannot carry LISTEN: the
// field polls, and says why.
func TestAListenDBThroughThePoolerIsSaid(t *testing.T) {
	f := newField(t)
	st := openPooled(t, f.Path, store.Options{ListenDB: pgtest.Pooler(t, f.Path)})
	ctx := context.Background()
	v0, err := st.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := waitChange(t, st, v0)
	if !testwait.Until(testwait.Deadline, func() bool { return strings.Contains(st.Polling(), "listen_db goes through a connection pooler") }) {
		t.Fatalf("Polling() = %q, want it to say listen_db goes through the pooler", st.Polling())
	}
	f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if v := <-got; v == v0 {
		t.Fatalf("WaitChange returned the epoch it was given, %d", v)
	}
}

// A pooler's refusal is named as the pooler's, in one sentence.
func TestAPoolersRefusalIsNamed(t *testing.T) {
	name := pgtest.WithParam(pgtest.Pooler(t, pgtest.URL(t)), "dbname", "no_such_database_here")
	_, err := postgres.Open(context.Background(), name, store.Options{})
	oe := wantOpenError(t, err, "was refused by the connection pooler in front of the server: ")
	if strings.Contains(oe.Reason, "cannot be reached") || strings.Contains(oe.Reason, "failed to connect") {
		t.Fatalf("the refusal reads %q", oe.Reason)
	}
}

// waitChange waits, in the background, for the field's epoch to move on
// from since; the channel has the new epoch.
func waitChange(t *testing.T, st *postgres.Store, since int64) <-chan int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	got := make(chan int64, 1)
	go func() {
		defer cancel()
		v, err := st.WaitChange(ctx, since)
		if err != nil {
			t.Errorf("WaitChange: %v", err)
		}
		got <- v
	}()
	return got
}

// listening reports whether a session of the server last ran LISTEN on
// channel.
func listening(t *testing.T, conn, channel string) bool {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query = $1`, "LISTEN "+channel).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// "cannot be reached" is said only when nothing answered; a server's
// refusal is named as the server's. Neither carries the driver's words.
func TestUnreachableAndRefusedAreToldApart(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, says string }{
		{"host=/nonexistent/dir user=maya dbname=team password=s3cret-pw", "cannot be reached (connect: no such file or directory)"},
		{"postgres://maya:s3cret-pw@127.0.0.1:1/team?connect_timeout=5", "cannot be reached (connect: connection refused)"},
		{pgtest.WithParam(pgtest.WithParam(pgtest.URL(t), "user", "no_such_role_here"), "password", "s3cret-pw"),
			`was refused by the server: role "no_such_role_here" does not exist`},
	} {
		_, err := postgres.Open(ctx, tc.name, store.Options{})
		oe := wantOpenError(t, err, tc.says)
		if strings.Contains(oe.Error(), "failed to connect") || strings.Contains(oe.Error(), "s3cret-pw") {
			t.Errorf("%s: %v", tc.name, oe)
		}
	}
}
