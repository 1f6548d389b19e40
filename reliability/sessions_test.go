package reliability

import (
	"fmt"
	"hash/fnv"
	"os"
	"testing"

	"arbiter/internal/pgtest"
	rt "arbiter/service/review/reviewtest"
)

// A worker killed on PostgreSQL just after sending COMMIT leaves its
// server session to carry the commit out, which can land after the
// process is reaped. checkField reads the units in one transaction and
// the conflicts in later ones: read in between, a decision shows as
// resolved with its units as they were before it. So on PostgreSQL each
// test's workers carry a name of their own (application_name), and the
// field is read once no session of that name is left on the server.

// workerApp is the application_name of t's workers.
func workerApp(t *testing.T) string {
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return fmt.Sprintf("arbiter-worker-%d-%08x", os.Getpid(), h.Sum32())
}

// workerPath is path as t's workers open it.
func workerPath(t *testing.T, path string) string {
	if !rt.OnPostgres() {
		return path
	}
	return pgtest.WithParam(path, "application_name", workerApp(t))
}

// waitWorkersGone waits until no session of t's workers is left on the
// server.
func waitWorkersGone(t *testing.T) {
	t.Helper()
	if rt.OnPostgres() && !pgtest.WaitSessions(t, workerApp(t)) {
		t.FailNow()
	}
}
