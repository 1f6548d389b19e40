package pgtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Schema returns a schema name no one uses yet and a connection string
// for a field in it, as Field does, and drops the schema when t ends,
// once no session of the field's is busy on the server (WaitSessions:
// its connection string names its sessions after the schema).
func Schema(t testing.TB) (schema, conn string) {
	t.Helper()
	base := URL(t)
	schema = Name("t")
	t.Cleanup(func() {
		WaitSessions(t, schema, busyStates...)
		Exec(t, base, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`)
	})
	return schema, WithParam(WithParam(base, "search_path", schema), "application_name", schema)
}

// Left says what the database holds of schema: whether it exists, and
// how many tables, functions and types are in it.
func Left(t testing.TB, schema string) (exists bool, objects int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, URL(t))
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer c.Close(ctx)
	err = c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
		(SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1)
		+ (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1)
		+ (SELECT count(*) FROM pg_type y JOIN pg_namespace n ON n.oid = y.typnamespace WHERE n.nspname = $1)`, schema).
		Scan(&exists, &objects)
	if err != nil {
		t.Fatal(err)
	}
	return exists, objects
}

// RefuseInserts makes the server refuse every insert into table of the
// field in schema, once a command creates that table: an event trigger
// puts a trigger on the table that raises an error. It is how a test
// makes a command fail part way through filling a new field, for real,
// on the server. The event trigger is the database's, so it acts only
// on that schema; it is dropped when t ends.
func RefuseInserts(t testing.TB, schema, table string) {
	t.Helper()
	base := URL(t)
	name := Name("refuse")
	Exec(t, base, fmt.Sprintf(`CREATE FUNCTION public.%[1]s_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'inserts into %%.%% are refused by a test', TG_TABLE_SCHEMA, TG_TABLE_NAME;
END $$`, name))
	Exec(t, base, fmt.Sprintf(`CREATE FUNCTION public.%[1]s_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT object_identity FROM pg_event_trigger_ddl_commands()
		WHERE command_tag = 'CREATE TABLE' AND object_type = 'table' AND schema_name = %[2]s AND object_identity = %[3]s
	LOOP
		EXECUTE format('CREATE TRIGGER %[1]s BEFORE INSERT ON %%s FOR EACH ROW EXECUTE FUNCTION public.%[1]s_row()', r.object_identity);
	END LOOP;
END $$`, name, quote(schema), quote(schema+"."+table)))
	Exec(t, base, fmt.Sprintf(`CREATE EVENT TRIGGER %[1]s ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION public.%[1]s_ddl()`, name))
	t.Cleanup(func() {
		Exec(t, base, `DROP EVENT TRIGGER IF EXISTS `+name)
		Exec(t, base, fmt.Sprintf(`DROP FUNCTION IF EXISTS public.%[1]s_ddl(), public.%[1]s_row() CASCADE`, name))
	})
}

// quote is s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// PoolerEnv names a connection pooler in transaction pooling mode
// (pgbouncer) in front of the test server, for the tests of a field
// behind one: a connection string like the server's, naming the pooler.
const PoolerEnv = "ARBITER_TEST_PGBOUNCER"

// Pooler returns the connection string of the pooler PoolerEnv names,
// for the field conn names (its schema and its sessions' name), or
// skips t, saying why, when there is none.
func Pooler(t testing.TB, conn string) string {
	t.Helper()
	base := strings.TrimSpace(os.Getenv(PoolerEnv))
	if base == "" {
		t.Skip(PoolerEnv + " names no connection pooler (.ci/run starts pgbouncer and sets it)")
	}
	cfg, err := pgx.ParseConfig(conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"search_path", "application_name"} {
		if v := cfg.RuntimeParams[k]; v != "" {
			base = WithParam(base, k, v)
		}
	}
	return base
}
