package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/sqlite"
	"arbiter/store/storetest"
)

// TestConformance runs the engines' common suite on SQLite files.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Engine{
		Create: func(t testing.TB, p model.Policy) (store.Field, string) {
			path := filepath.Join(t.TempDir(), "field.db")
			st, err := sqlite.Create(context.Background(), path, p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st, path
		},
		Open: func(t testing.TB, path string, opt store.Options) store.Field {
			st, err := sqlite.Open(context.Background(), path, opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
		Exec: func(t testing.TB, path, query string) error {
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
			if err != nil {
				return err
			}
			defer db.Close()
			_, err = db.Exec(query)
			return err
		},
		Role: "any-role-at-all", // stored and shown; a file has no roles
	})
}
