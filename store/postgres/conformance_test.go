package postgres_test

import (
	"context"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/model"
	"arbiter/store"
	"arbiter/store/postgres"
	"arbiter/store/storetest"
)

// engine is the suite's view of PostgreSQL: each field a schema of its
// own on the test server.
func engine() storetest.Engine {
	return storetest.Engine{
		Create: func(t testing.TB, p model.Policy) (store.Field, string) {
			name := pgtest.Field(t)
			st, err := postgres.Create(context.Background(), name, p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st, name
		},
		Open: func(t testing.TB, name string, opt store.Options) store.Field {
			st, err := postgres.Open(context.Background(), name, opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
		Exec: func(t testing.TB, name, query string) error {
			return pgtest.ExecIn(context.Background(), name, query)
		},
		Role: "pg_monitor", // a role every server has
	}
}

// TestConformance runs the engines' common suite on PostgreSQL.
func TestConformance(t *testing.T) {
	storetest.Run(t, engine())
}
