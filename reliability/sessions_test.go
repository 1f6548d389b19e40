package reliability

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/internal/testwait"
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
// server, and says what it waited for.
func waitWorkersGone(t *testing.T, path string) {
	t.Helper()
	if !rt.OnPostgres() {
		return
	}
	c := connect(t, path)
	var left []string
	gone := func() bool {
		rows, err := c.Query(context.Background(),
			`SELECT coalesce(state, ''), left(query, 40) FROM pg_stat_activity WHERE application_name = $1`, workerApp(t))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		left = left[:0]
		for rows.Next() {
			var state, query string
			if err := rows.Scan(&state, &query); err != nil {
				t.Fatal(err)
			}
			left = append(left, state+": "+query)
		}
		return len(left) == 0 && rows.Err() == nil
	}
	begin := time.Now()
	if gone() {
		return
	}
	seen := strings.Join(left, "; ")
	if !testwait.Until(testwait.Deadline, gone) {
		t.Fatalf("sessions of killed workers still on the server after %s: %s", testwait.Deadline, strings.Join(left, "; "))
	}
	t.Logf("waited %s for killed workers' sessions to end on the server (%s)", time.Since(begin).Round(time.Millisecond), seen)
}
