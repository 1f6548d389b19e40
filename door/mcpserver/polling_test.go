package mcpserver

import (
	"context"
	"strings"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// Behind a connection pooler without listen_db the server hears of
// changes by polling, and says so when it starts.
func TestTheServerSaysItPollsBehindAPooler(t *testing.T) {
	if !rt.OnPostgres() {
		t.Skip("a field on PostgreSQL")
	}
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	st, err := field.Open(ctx, pgtest.Pooler(t, f.Path), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var notices strings.Builder
	if _, err := New(ctx, review.New(st), rt.Scout, Options{Notices: &notices}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notices.String(), "behind a connection pooler without listen_db, changes are read every 2 s") {
		t.Fatalf("notices: %q", notices.String())
	}
}
