package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A field on a server is a schema: Create makes it, or fills an empty
// one a database administrator made beforehand; Remove takes a field
// Create made back, leaving the database as Create found it.

// made is what Create made: the field's tables and functions, and
// whether the schema too.
type made struct {
	field  bool
	schema bool
}

// removeTimeout bounds Remove, which runs whether or not its caller's
// context has ended.
const removeTimeout = time.Minute

// Remove closes the field and drops what Create made: the schema with
// everything in it, or, in a schema that was there before, the tables
// and functions Create put there (the schema was empty: create refuses
// one that is not). It refuses a field Open opened.
func (s *Store) Remove(ctx context.Context) error {
	if !s.made.field {
		return s.openError("was opened, not created here: it is not removed", nil)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if s.changes != nil {
		s.changes.close()
		s.changes = nil
	}
	err := s.drop(ctx)
	s.made = made{}
	s.pool.Close()
	if err != nil {
		return s.openError("could not be removed again", err)
	}
	return nil
}

// drop drops the field's schema, or what is in it, in one transaction.
func (s *Store) drop(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	schema := pgx.Identifier{s.schema}.Sanitize()
	if s.made.schema {
		if _, err := tx.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	rows, err := tx.Query(ctx, `SELECT format('DROP TABLE IF EXISTS %I.%I CASCADE', n.nspname, c.relname)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
		UNION ALL
		SELECT format('DROP SEQUENCE IF EXISTS %I.%I CASCADE', n.nspname, c.relname)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'S'
		UNION ALL
		SELECT format('DROP FUNCTION IF EXISTS %I.%I(%s) CASCADE', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1`, s.schema)
	if err != nil {
		return err
	}
	drops, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, d := range drops {
		if _, err := tx.Exec(ctx, d); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	return tx.Commit(ctx)
}
