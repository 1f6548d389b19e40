// Package field opens a field by its name, whichever engine keeps it: a
// path is a SQLite file (store/sqlite).
package field

import (
	"context"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/sqlite"
)

// Open opens the existing field name with opt.
func Open(ctx context.Context, name string, opt store.Options) (store.Field, error) {
	st, err := sqlite.Open(ctx, name, opt)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Create makes a new field name with policy p; it refuses one that
// exists.
func Create(ctx context.Context, name string, p model.Policy) (store.Field, error) {
	st, err := sqlite.Create(ctx, name, p)
	if err != nil {
		return nil, err
	}
	return st, nil
}
