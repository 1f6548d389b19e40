package postgres_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/postgres"

	"github.com/jackc/pgx/v5"
)

func TestNamesAreConnectionStringsOrFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server bool
		shown  string
	}{
		{"postgres://maya:pw@db.example/team", true, "postgres://maya@db.example/team"},
		{"postgresql://maya@db.example:5433/team?sslmode=require&search_path=ops", true, "postgresql://maya@db.example:5433/team?sslmode=require&search_path=ops"},
		{"postgres://db.example/team?password=pw&user=maya", true, "postgres://db.example/team?user=maya"},
		{"host=db.example dbname=team user=maya password=pw", true, "host=db.example dbname=team user=maya"},
		{"host=/run/pg dbname=team password='p w\\' x' sslmode=disable", true, "host=/run/pg dbname=team sslmode=disable"},
		{"dbname=team", true, "dbname=team"},
		{"postgres://maya:pw@[bad", true, "postgres://maya@[bad"},
		{"team.db", false, ""},
		{"/srv/fields/a=b.db", false, ""},
		{"./host=db.example", false, ""},
		{"my field.db", false, ""},
		{"", false, ""},
	} {
		if got := postgres.IsName(tc.name); got != tc.server {
			t.Errorf("IsName(%q) = %v, want %v", tc.name, got, tc.server)
			continue
		}
		if !tc.server {
			continue
		}
		if got := postgres.Redact(tc.name); got != tc.shown {
			t.Errorf("Redact(%q) = %q, want %q", tc.name, got, tc.shown)
		}
	}
}

func wantOpenError(t *testing.T, err error, reason string) *store.OpenError {
	t.Helper()
	var oe *store.OpenError
	if !errors.As(err, &oe) || !strings.Contains(oe.Reason, reason) {
		t.Fatalf("got %v, want an OpenError saying %q", err, reason)
	}
	return oe
}

func TestOpenRefusesWhatIsNotAField(t *testing.T) {
	ctx := context.Background()
	name := pgtest.WithParam(pgtest.Field(t), "password", "s3cret-pw")
	_, err := postgres.Open(ctx, name, store.Options{})
	oe := wantOpenError(t, err, "no such field")
	if strings.Contains(oe.Error(), "s3cret-pw") || strings.Contains(oe.Name, "s3cret-pw") {
		t.Fatalf("the error shows the password: %v", oe)
	}
	pgtest.Exec(t, name, `CREATE SCHEMA `+schemaOf(t, name)+`; CREATE TABLE notes (x int)`)
	_, err = postgres.Open(ctx, name, store.Options{})
	wantOpenError(t, err, "holds no arbiter field")
	_, err = postgres.Create(ctx, name, model.DefaultPolicy())
	wantOpenError(t, err, "already holds tables")
	for _, bad := range []string{pgtest.WithParam(pgtest.URL(t), "search_path", "a,b"),
		pgtest.WithParam(pgtest.URL(t), "search_path", strings.Repeat("x", 51))} {
		_, err = postgres.Open(ctx, bad, store.Options{})
		wantOpenError(t, err, "schema")
	}
}

// The schema may also come through libpq's options parameter.
func TestTheSchemaComesFromSearchPathOrOptions(t *testing.T) {
	ctx := context.Background()
	name := pgtest.Field(t)
	schema := schemaOf(t, name)
	st, err := postgres.Create(ctx, name, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, opt := range []string{"-c search_path=" + schema, "-csearch_path=" + schema, "--search_path=" + schema} {
		st, err := postgres.Open(ctx, pgtest.WithParam(pgtest.URL(t), "options", "'"+opt+"'"), store.Options{})
		if err != nil {
			t.Fatalf("options %q: %v", opt, err)
		}
		if st.Schema() != schema {
			t.Errorf("options %q: schema %q, want %q", opt, st.Schema(), schema)
		}
		st.Close()
	}
}

func schemaOf(t *testing.T, name string) string {
	t.Helper()
	_, after, _ := strings.Cut(name, "search_path=")
	schema, _, _ := strings.Cut(after, " ")
	return schema
}

func TestCreateRefusesAFieldThatExistsAndOpenAFormatFromTheFuture(t *testing.T) {
	ctx := context.Background()
	name := pgtest.Field(t)
	st, err := postgres.Create(ctx, name, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err = postgres.Create(ctx, name, model.DefaultPolicy())
	if oe := wantOpenError(t, err, "already exists"); !errors.Is(oe, fs.ErrExist) {
		t.Fatalf("%v should wrap fs.ErrExist", oe)
	}
	pgtest.Exec(t, name, `UPDATE field_format SET version = version + 1`)
	_, err = postgres.Open(ctx, name, store.Options{})
	wantOpenError(t, err, "newer arbiter")
}

// Text PostgreSQL cannot hold is refused as a bad request, not stored
// half way.
func TestNULAndInvalidUTF8AreRefusedAsBadRequests(t *testing.T) {
	rtField := newField(t)
	for _, content := range []string{"nul \x00 inside", "bad \xff utf8"} {
		_, err := rtField.Svc.Record(context.Background(), rt.Standard, finding(content))
		rt.WantError(t, err, model.CodeInvalidRequest, model.OpRecord, true)
	}
}

// newField is a reviewtest field on PostgreSQL, whatever
// ARBITER_TEST_ENGINE says.
func newField(t *testing.T) *rt.Field {
	t.Helper()
	ctx := context.Background()
	name := pgtest.Field(t)
	st, err := postgres.Create(ctx, name, rt.Policy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &rt.Field{Path: name, Store: st, Svc: review.New(st)}
	for _, a := range rt.Agents {
		if _, err := f.Svc.Register(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// A lock held past the busy timeout is FIELD_BUSY, and nothing is
// written; once it is released the write goes through.
func TestALockHeldTooLongIsFieldBusy(t *testing.T) {
	f := newField(t)
	ctx := context.Background()
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	holder, err := pgx.Connect(ctx, f.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM conflicts WHERE id = $1 FOR UPDATE`, p.Conflict); err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(ctx, f.Path, store.Options{BusyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before := rt.Snap(t, f.Path)
	svc := review.New(st)
	_, err = svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "no"}})
	rt.WantError(t, err, model.CodeFieldBusy, model.OpMerge, true)
	if d := before.Diff(rt.Snap(t, f.Path)); d != "" {
		t.Fatalf("a busy write wrote:\n%s", d)
	}
	tx.Rollback(ctx)
	if _, err := svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Dismiss,
		Resolution: model.MergeResolution{Rationale: "no"}}); err != nil {
		t.Fatalf("after the lock is gone: %v", err)
	}
}

// Two writes that lock the same units in opposite orders deadlock; the
// one PostgreSQL picks is run again and both go through.
func TestADeadlockIsRetried(t *testing.T) {
	f := newField(t)
	ctx := context.Background()
	a := f.Unit(t, f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{}).A)
	b := f.Unit(t, f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{}).A)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	attempts := make([]int, 2)
	// Both first attempts hold their first unit before either asks for
	// its second, however slow the machine: a deadlock every time.
	var first sync.WaitGroup
	first.Add(2)
	for i, order := range [][2]string{{a.ID, b.ID}, {b.ID, a.ID}} {
		wg.Go(func() {
			errs[i] = f.Store.Write(ctx, func(tx store.Tx) error {
				attempts[i]++
				if _, err := tx.Unit(order[0]); err != nil {
					return err
				}
				if attempts[i] == 1 {
					first.Done()
					first.Wait()
				}
				if _, err := tx.Unit(order[1]); err != nil {
					return err
				}
				_, err := tx.EpochTick()
				return err
			})
		})
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("deadlocked writes: %v, %v", errs[0], errs[1])
	}
	// The write run again may deadlock once more: the survivor wakes up to
	// take the row the victim's abort freed, and on a busy machine the
	// victim's next attempt can lock it first. So at least one retry, and
	// as many as it takes within the engine's attempts.
	const maxAttempts = 8 // tx.go's
	if n := attempts[0] + attempts[1]; n < 3 || n > 1+maxAttempts {
		t.Fatalf("attempts %v: want one of the two run again, within %d attempts", attempts, maxAttempts)
	}
}

// A connection that breaks under a write is a protocol error naming the
// cause, and the next write works on a new connection.
func TestALostConnectionIsAProtocolError(t *testing.T) {
	f := newField(t)
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	schema := cfg.RuntimeParams["search_path"]
	err = f.Store.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.EpochTick(); err != nil {
			return err
		}
		// Only this write's connection: the one writing this field (it holds
		// begin_write's lock), not other tests' on the same server.
		pgtest.Exec(t, pgtest.URL(t), `SELECT pg_terminate_backend(pid) FROM pg_locks
			WHERE locktype = 'advisory' AND objsubid = 2 AND classid = 1634886249::oid AND objid = hashtext($1)::oid
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, schema)
		_, err := tx.EpochTick()
		return err
	})
	pe, ok := model.AsError(err)
	if !ok || pe.Code != model.CodeInternalError || !strings.Contains(pe.Message, "connection") {
		t.Fatalf("a write whose connection was cut: %v, want INTERNAL_ERROR about the connection", err)
	}
	if _, err := f.Svc.Register(ctx, model.Agent{ID: "after", Role: "analyst", Authority: 4}); err != nil {
		t.Fatalf("the next write: %v", err)
	}
}
