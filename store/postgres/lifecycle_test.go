package postgres_test

import (
	"context"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/store"
	"arbiter/store/postgres"
)

// created is a new field name points at.
func created(t *testing.T, ctx context.Context, name string) *postgres.Store {
	t.Helper()
	st, err := postgres.Create(ctx, name, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// wantLeft fails t unless schema exists as wanted and holds that many
// objects.
func wantLeft(t *testing.T, schema string, exists bool, objects int) {
	t.Helper()
	if e, n := pgtest.Left(t, schema); e != exists || n != objects {
		t.Errorf("schema %s: exists %v with %d objects, want exists %v with %d", schema, e, n, exists, objects)
	}
}

func TestRemoveDropsTheSchemaCreateMade(t *testing.T) {
	ctx := context.Background()
	schema, name := pgtest.Schema(t)
	st := created(t, ctx, name)
	if _, n := pgtest.Left(t, schema); n == 0 {
		t.Fatal("Create made nothing")
	}
	if err := st.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	wantLeft(t, schema, false, 0)
}

// A schema a database administrator made for the field stays, as empty
// as it was: its owner and grants are the administrator's.
func TestRemoveEmptiesASchemaMadeBeforehand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	schema, name := pgtest.Schema(t)
	pgtest.Exec(t, pgtest.URL(t), `CREATE SCHEMA `+schema)
	st := created(t, ctx, name)
	cancel() // an interrupted command still takes its field back
	if err := st.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	wantLeft(t, schema, true, 0)
}

func TestRemoveRefusesAFieldItDidNotCreate(t *testing.T) {
	ctx := context.Background()
	schema, name := pgtest.Schema(t)
	st := created(t, ctx, name)
	st.Close()
	_, before := pgtest.Left(t, schema)
	opened, err := postgres.Open(ctx, name, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	if err := opened.Remove(ctx); err == nil {
		t.Error("Remove took away a field that was opened, not created")
	}
	wantLeft(t, schema, true, before)
}

// A role that may make tables in a schema but may not write a field
// there (it is not the schema's owner, nor a member of it: the checks
// of who acts refuse the policy) gets an error from Create, and the
// schema is left as it was.
func TestCreateThatFailsLeavesTheSchemaAsItWas(t *testing.T) {
	ctx := context.Background()
	schema, name := pgtest.Schema(t)
	base := pgtest.URL(t)
	owner := pgtest.Name("owner")
	pgtest.Exec(t, base, `CREATE ROLE `+owner+` NOLOGIN`)
	t.Cleanup(func() {
		pgtest.Exec(t, base, `DROP OWNED BY `+owner)
		pgtest.Exec(t, base, `DROP ROLE IF EXISTS `+owner)
	})
	maker, asMaker := pgtest.Role(t, name, "maker")
	pgtest.Exec(t, base, `CREATE SCHEMA `+schema+` AUTHORIZATION `+owner)
	pgtest.Exec(t, base, `GRANT USAGE, CREATE ON SCHEMA `+schema+` TO `+maker)
	st, err := postgres.Create(ctx, asMaker, model.DefaultPolicy())
	if err == nil {
		st.Close()
		t.Fatal("a role that may not write the field created one")
	}
	if !model.HasCode(err, model.CodeNotPermitted) {
		t.Fatalf("Create: %v; want NOT_PERMITTED, from writing the policy into the tables it made", err)
	}
	wantLeft(t, schema, true, 0)
}
