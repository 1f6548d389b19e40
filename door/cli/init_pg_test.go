package cli

import (
	"strings"
	"testing"

	"arbiter/internal/pgtest"
)

// An init --demo that fails on PostgreSQL leaves nothing behind: the
// schema it made is gone, and a schema an administrator made for the
// field is as empty as before. The server itself refuses the demo's
// first conflict.
func TestInitDemoThatFailsOnPostgreSQLLeavesNoSchema(t *testing.T) {
	for _, madeBefore := range []bool{false, true} {
		schema, name := pgtest.Schema(t)
		if madeBefore {
			pgtest.Exec(t, pgtest.URL(t), `CREATE SCHEMA `+schema)
		}
		pgtest.RefuseInserts(t, schema, "conflicts")
		r := arbiter(t, "init", "--db", name, "--demo")
		wantExit(t, r, 1)
		if !strings.Contains(r.stderr, "filling in the demo failed") || !strings.Contains(r.stderr, "refused by a test") ||
			strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr = %q, want one line: the demo failed, refused by the server", r.stderr)
		}
		if exists, objects := pgtest.Left(t, schema); exists != madeBefore || objects != 0 {
			t.Errorf("schema made before init %v: after it, exists %v with %d objects", madeBefore, exists, objects)
		}
	}
}
