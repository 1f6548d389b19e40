// Package field opens or creates a field by its name, whichever engine
// keeps it: a PostgreSQL connection string (postgres://…, postgresql://…,
// or libpq key=value pairs such as "host=db.example dbname=team") is a
// field on that server (store/postgres); anything else is the path of a
// SQLite file (store/sqlite). What a field is made of — a file and its
// companions, or a schema — is the engine's to know: a field Create made
// is taken back whole by its Remove.
package field

import (
	"context"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/postgres"
	"arbiter/store/sqlite"
)

// IsServer reports whether name is a field on a PostgreSQL server rather
// than a file.
func IsServer(name string) bool { return postgres.IsName(name) }

// Open opens the existing field name with opt.
func Open(ctx context.Context, name string, opt store.Options) (store.Field, error) {
	if postgres.IsName(name) {
		st, err := postgres.Open(ctx, name, opt)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	st, err := sqlite.Open(ctx, name, opt)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Create makes a new field name with policy p; it refuses one that
// exists. What it returns can still be taken back whole (Remove), by a
// command that fails while filling it.
func Create(ctx context.Context, name string, p model.Policy) (store.Created, error) {
	if postgres.IsName(name) {
		st, err := postgres.Create(ctx, name, p)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	st, err := sqlite.Create(ctx, name, p)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Redact is name as arbiter shows it: a connection string without its
// password; a path unchanged.
func Redact(name string) string {
	if postgres.IsName(name) {
		return postgres.Redact(name)
	}
	return name
}
