package pgtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"arbiter/internal/testwait"
)

// A process killed while its query runs leaves its server session to
// finish the query, and the session ends only when it next writes to the
// dead client. So a test that kills an arbiter process cannot take the
// process's end for its sessions' end: a field's schema dropped at once
// can deadlock with a query the dead process's session is still running
// on it. Each field's connection string names its sessions
// (application_name, the schema's name), and WaitSessions waits for them.

// busyStates are the states of a session that may hold locks on a field: a
// query running, or a transaction open. An idle session, such as a
// pooler keeps for its next client, holds none.
var busyStates = []string{"active", "idle in transaction", "idle in transaction (aborted)", "fastpath function call"}

// WaitSessions waits until no session named app (its application_name)
// is on the test server in one of states (in any state, if states is
// empty). It says in t's log what it waited for when it had to; if some
// are still there at testwait.Deadline, it reports them as t's error and
// returns false.
func WaitSessions(t testing.TB, app string, states ...string) bool {
	t.Helper()
	return waitSessions(t, URL(t), app, states)
}

// waitSessions is WaitSessions, looking on the server (or pooler) server
// names.
func waitSessions(t testing.TB, server, app string, states []string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Deadline+time.Minute)
	defer cancel()
	c, err := lookout(ctx, server)
	if err != nil {
		t.Errorf("connect to the test server: %v", err)
		return false
	}
	defer c.Close(ctx)
	var left []string
	gone := func() bool {
		left, err = sessions(ctx, c, app, states)
		return err == nil && len(left) == 0
	}
	begin := time.Now()
	if gone() {
		return true
	}
	seen := strings.Join(left, "; ")
	if !testwait.Until(testwait.Deadline, gone) {
		if err != nil {
			t.Errorf("look for the sessions of %s on the test server: %v", app, err)
		} else {
			t.Errorf("sessions of %s still on the test server after %s: %s", app, testwait.Deadline, strings.Join(left, "; "))
		}
		return false
	}
	t.Logf("waited %s for the sessions of %s to end on the test server (%s)", time.Since(begin).Round(time.Millisecond), app, seen)
	return true
}

// lookout connects to server to look at its sessions. The server may be
// a pooler in transaction pooling mode (.ci/run runs a suite so): no
// statement is prepared by name, which another server connection would
// not know, or would already have.
func lookout(ctx context.Context, server string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(server)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.RuntimeParams["application_name"] = "pgtest"
	return pgx.ConnectConfig(ctx, cfg)
}

// sessions lists the sessions named app in one of states (any state, if
// states is empty), as "state: the start of its query".
func sessions(ctx context.Context, c *pgx.Conn, app string, states []string) ([]string, error) {
	if states == nil {
		states = []string{}
	}
	rows, err := c.Query(ctx, `SELECT coalesce(state, ''), left(query, 60) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid() AND (cardinality($2::text[]) = 0 OR state = ANY($2))`, app, states)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var left []string
	for rows.Next() {
		var state, query string
		if err := rows.Scan(&state, &query); err != nil {
			return nil, err
		}
		left = append(left, state+": "+query)
	}
	return left, rows.Err()
}
