package pgtest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"arbiter/internal/testwait"
)

// WaitSessions waits for a field's session running a query, and not for
// one left idle, looking on the server itself and, when there is one,
// through the pooler (where each look may be served by another server
// connection).
func TestWaitSessionsWaitsForABusySessionAndNotForAnIdleOne(t *testing.T) {
	servers := map[string]string{"directly": URL(t)}
	if p := strings.TrimSpace(os.Getenv(PoolerEnv)); p != "" {
		servers["through the pooler"] = p
	}
	for how, server := range servers {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			app := Name("busy")
			busy, err := pgx.Connect(ctx, WithParam(URL(t), "application_name", app))
			if err != nil {
				t.Fatal(err)
			}
			defer busy.Close(ctx)
			look, err := lookout(ctx, URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer look.Close(ctx)
			list := func(states ...string) []string {
				t.Helper()
				l, err := sessions(ctx, look, app, states)
				if err != nil {
					t.Fatal(err)
				}
				return l
			}

			done := make(chan error, 1)
			go func() { _, err := busy.Exec(ctx, `SELECT pg_sleep(0.5)`); done <- err }()
			testwait.For(t, "the session's query to start", func() bool { return len(list(busyStates...)) == 1 })
			if !waitSessions(t, server, app, busyStates) {
				t.Fatal("WaitSessions gave up on a query that ends in half a second")
			}
			if l := list(busyStates...); len(l) != 0 {
				t.Errorf("WaitSessions returned while the session was busy: %v", l)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if l := list("idle"); len(l) != 1 {
				t.Fatalf("the session, idle: %v, want it there", l)
			}
			if !waitSessions(t, server, app, busyStates) {
				t.Error("WaitSessions waited for an idle session")
			}
		})
	}
}
