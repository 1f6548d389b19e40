// Package postgres keeps an arbiter field in a PostgreSQL database, for a
// team that shares one field: the tables of the field format in a schema
// of their own, queries and transactions, the change signal (LISTEN and
// NOTIFY), and the checks of who may act as whom. It implements
// store.Field with the SQLite engine's semantics; the conformance suite
// (store/storetest) and the rules' tests run on both.
//
// It talks to the server through pgx directly rather than database/sql:
// the change signal needs a connection that waits for notifications,
// generated fields and copies are written with COPY, and both are pgx's
// own; pgx's binary protocol also reads a queue of thousands of rows
// faster than database/sql's scanning through interfaces.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultSchema is the schema a field lives in unless the connection
// string's search_path names another.
const DefaultSchema = "arbiter"

// Store is an open field on a PostgreSQL server.
type Store struct {
	pool     *pgxpool.Pool
	cfg      *pgxpool.Config
	name     string // the connection string without its password
	password string // to scrub from errors
	schema   string
	readOnly bool
	opt      store.Options
	changes  *listener
	made     made // what Create made, for Remove (lifecycle.go)
	// pooled is whether a connection pooler stands between (pooler.go);
	// local are the settings every transaction is given then.
	pooled bool
	local  []any
	// words is what the planner's statistics say of the word index, for
	// detection's candidates (detect.go).
	words wordCache
}

// IsName reports whether name is a PostgreSQL connection string rather
// than a file: a postgres:// or postgresql:// URL, or libpq key=value
// pairs, one of them a parameter libpq knows ("host=db.example
// dbname=team"). Anything else is a SQLite path.
func IsName(name string) bool {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://") {
		return true
	}
	if !strings.Contains(name, "=") {
		return false
	}
	named := false
	for _, f := range kvFields(name) {
		k, _, ok := strings.Cut(f, "=")
		if !ok || !isKey(k) {
			return false
		}
		named = named || libpqKeys[k]
	}
	return named
}

// isKey reports whether k could be a connection parameter's name: lower
// case letters and underscores. (An unknown one is the server's to
// refuse, not a reason to take the string for a file.)
func isKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

// libpqKeys are the connection parameters a key=value string may hold.
var libpqKeys = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "connect_timeout": true, "sslmode": true, "sslcert": true, "sslkey": true,
	"sslrootcert": true, "sslpassword": true, "sslcrl": true, "application_name": true, "service": true,
	"servicefile": true, "target_session_attrs": true, "search_path": true, "options": true,
	"sslnegotiation": true, "krbsrvname": true, "gssencmode": true, "channel_binding": true,
}

// Redact returns the connection string name without its password, as
// arbiter shows it: the URL without the password, or the key=value
// pairs without password=.
func Redact(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://") {
		u, err := url.Parse(name)
		if err != nil {
			return redactBrokenURL(name)
		}
		if u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.User(u.User.Username())
			}
		}
		q := u.Query()
		if q.Has("password") {
			q.Del("password")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	var kept []string
	for _, f := range kvFields(name) {
		if k, _, _ := strings.Cut(f, "="); strings.TrimSpace(k) == "password" {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " ")
}

var brokenURLPassword = regexp.MustCompile(`^(postgres(?:ql)?://[^:@/]*):[^@]*@`)

// redactBrokenURL drops what may be a password from a URL that does not
// parse.
func redactBrokenURL(name string) string {
	return brokenURLPassword.ReplaceAllString(name, "$1@")
}

// kvFields splits key=value pairs, keeping single-quoted values whole.
func kvFields(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && quoted && i+1 < len(s):
			cur.WriteByte(c)
			i++
			cur.WriteByte(s[i])
		case c == '\'':
			quoted = !quoted
			cur.WriteByte(c)
		case (c == ' ' || c == '\t' || c == '\n') && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// Open opens the existing field the connection string name points at.
func Open(ctx context.Context, name string, opt store.Options) (*Store, error) {
	s, err := connect(ctx, name, opt)
	if err != nil {
		return nil, err
	}
	if err := s.checkFormat(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.changes, err = newListener(s, opt.ListenDB); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Create makes a new field with policy p in the schema the connection
// string names (search_path; arbiter by default), creating the schema if
// it is not there. It refuses a schema that holds a field already, or
// anything else.
func Create(ctx context.Context, name string, p model.Policy) (*Store, error) {
	s, err := connect(ctx, name, store.Options{})
	if err != nil {
		return nil, err
	}
	if err := s.create(ctx, p); err != nil {
		if s.made.field {
			s.Remove(ctx)
		} else {
			s.Close()
		}
		return nil, err
	}
	s.changes, _ = newListener(s, "")
	return s, nil
}

// connect parses name and opens a pool of connections to its server,
// with the field's schema as every connection's search_path.
func connect(ctx context.Context, name string, opt store.Options) (*Store, error) {
	s := &Store{name: Redact(name), readOnly: opt.ReadOnly, opt: opt}
	cfg, err := pgxpool.ParseConfig(strings.TrimSpace(name))
	if err != nil {
		return nil, s.openError("is not a connection string arbiter can read", err)
	}
	s.password = cfg.ConnConfig.Password
	s.cfg = cfg
	rp := cfg.ConnConfig.RuntimeParams
	s.schema = DefaultSchema
	if rp["search_path"] == "" {
		rp["search_path"] = searchPathOption(rp["options"])
	}
	if sp := strings.TrimSpace(rp["search_path"]); sp != "" {
		if strings.Contains(sp, ",") {
			return nil, s.openError(fmt.Sprintf("search_path %q names several schemas; a field is one schema (search_path=NAME)", sp), nil)
		}
		s.schema = strings.Trim(sp, `"`)
	}
	if s.schema == "" || len(s.schema) > 50 {
		return nil, s.openError(fmt.Sprintf("schema %q: a field's schema name has 1 to 50 bytes", s.schema), nil)
	}
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = store.DefaultBusyTimeout
	}
	s.local = sessionSettings(s.schema, busy.Milliseconds())
	if rp["application_name"] == "" {
		rp["application_name"] = "arbiter"
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	cfg.MaxConns = 8
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = time.Minute
	direct := cfg.Copy()
	rp = direct.ConnConfig.RuntimeParams
	rp["search_path"] = s.local[0].(string)
	// A write waits this long for a row another writer holds, then gives
	// up with FIELD_BUSY (lock_not_available).
	rp["lock_timeout"] = s.local[1].(string)
	// A transaction left open by a client that went away does not hold
	// the field's locks for ever.
	rp["idle_in_transaction_session_timeout"] = s.local[2].(string)
	if opt.ReadOnly {
		rp["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, direct)
	if err != nil {
		return nil, s.openError("cannot be opened", err)
	}
	pooled, err := probe(ctx, pool)
	if err != nil && !refusedStartup(err) {
		pool.Close()
		return nil, s.connectError(err)
	}
	if err == nil && !pooled {
		s.pool, s.cfg = pool, direct
		return s, nil
	}
	// A pooler (pooler.go): the settings go with every transaction.
	pool.Close()
	forPooler(cfg)
	s.pooled = true
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, s.openError("cannot be opened", err)
	}
	s.cfg = cfg
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, s.connectError(err)
	}
	return s, nil
}

// searchPathOption is the search_path libpq's options parameter sets
// ("-c search_path=team" or "--search_path=team"), "" if none.
func searchPathOption(options string) string {
	f := strings.Fields(options)
	for i, o := range f {
		v, ok := strings.CutPrefix(o, "--search_path=")
		if !ok && o == "-c" && i+1 < len(f) {
			v, ok = strings.CutPrefix(f[i+1], "search_path=")
		}
		if !ok {
			v, ok = strings.CutPrefix(o, "-csearch_path=")
		}
		if ok {
			return v
		}
	}
	return ""
}

// openError is a field that cannot be opened, naming it without its
// password, and saying why without it either.
func (s *Store) openError(reason string, err error) *store.OpenError {
	if err != nil {
		reason += ": " + s.scrub(err.Error())
		err = scrubbed{err: err, text: s.scrub(err.Error())}
	}
	return &store.OpenError{Name: s.name, Reason: reason, Err: err}
}

// scrub removes the password from text, should a driver's message
// repeat it.
func (s *Store) scrub(text string) string {
	if len(s.password) >= 3 {
		text = strings.ReplaceAll(text, s.password, "xxxxx")
	}
	return text
}

// scrubbed is an error whose text has lost the password; Unwrap still
// reaches the driver's error for errors.As.
type scrubbed struct {
	err  error
	text string
}

func (e scrubbed) Error() string { return e.text }
func (e scrubbed) Unwrap() error { return e.err }

// checkFormat makes sure the schema holds an arbiter field of a format
// this arbiter knows, upgrading an older one (when not read-only).
func (s *Store) checkFormat(ctx context.Context) error {
	var app string
	var v int
	err := s.queryRow(ctx, `SELECT application, version FROM field_format WHERE id = 1`).Scan(&app, &v)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "42P01": // undefined_table
		var exists, usable bool
		s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
			coalesce((SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = $1), false)`, s.schema).Scan(&exists, &usable)
		switch {
		case !exists:
			return s.openError(fmt.Sprintf("no such field: the database has no schema %q (create one with `arbiter init --db %s`)", s.schema, s.name), nil)
		case !usable:
			return s.openError(fmt.Sprintf("may not be read by this role: it has no USAGE on schema %q (docs/postgres.md: the roles of a field)", s.schema), nil)
		}
		return s.openError(fmt.Sprintf("schema %q holds no arbiter field", s.schema), nil)
	case errors.As(err, &pe) && pe.Code == "42501": // insufficient_privilege
		return s.openError(fmt.Sprintf("may not be read by this role: %s (grant it USAGE on schema %q and SELECT on its tables; docs/postgres.md)", pe.Message, s.schema), nil)
	case errors.As(err, &pe):
		return s.openError("cannot be read: "+refuser(pe)+" refused: "+s.scrub(pe.Message), nil)
	case err != nil:
		return s.connectError(err)
	case app != Application:
		return s.openError(fmt.Sprintf("schema %q holds something else than an arbiter field", s.schema), nil)
	case v > Version:
		return s.openError(fmt.Sprintf("was written by a newer arbiter (PostgreSQL field format %d; this arbiter knows up to %d): upgrade arbiter to open it", v, Version), nil)
	case v < Version && s.readOnly:
		return s.openError(fmt.Sprintf("uses the older PostgreSQL field format %d and is open read-only; open it once read-write to upgrade it to %d", v, Version), nil)
	case v < Version:
		return s.migrate(ctx, v)
	}
	return nil
}

// create makes the schema and the field in one transaction.
func (s *Store) create(ctx context.Context, p model.Policy) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.connectError(err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return s.openError("cannot be created", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := s.inTx(ctx, tx); err != nil {
		return s.openError("cannot be created", err)
	}
	var exists, empty bool
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
		NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1)
		AND NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1)`, s.schema).
		Scan(&exists, &empty)
	if err != nil {
		return s.openError("cannot be created", err)
	}
	switch {
	case exists && !empty:
		var app string
		if tx.QueryRow(ctx, `SELECT application FROM field_format`).Scan(&app) == nil && app == Application {
			return &store.OpenError{Name: s.name, Err: fs.ErrExist,
				Reason: fmt.Sprintf("already exists (schema %q holds a field); refusing to overwrite it", s.schema)}
		}
		tx.Rollback(ctx)
		return s.openError(fmt.Sprintf("schema %q already holds tables or functions; a field needs a schema of its own (name another with search_path=NAME)", s.schema), nil)
	case !exists:
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{s.schema}.Sanitize()); err != nil {
			return s.openError("cannot be created", err)
		}
	}
	for i, m := range migrations {
		if _, err := tx.Exec(ctx, m); err != nil {
			return s.openError(fmt.Sprintf("cannot be created (migration %d)", i+1), err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE field_format SET version = $1`, Version); err != nil {
		return s.openError("cannot be created", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.openError("cannot be created", err)
	}
	s.made = made{field: true, schema: !exists}
	// The policy is written as any write is, through the checks of who
	// acts: a role that may create a field but not write it fails here,
	// and Create removes the field again.
	if err := s.Write(ctx, func(t store.Tx) error { return t.PolicySet(p) }); err != nil {
		return s.openError("cannot be created", err)
	}
	return nil
}

// migrate upgrades a field of format from to Version, in one
// transaction.
func (s *Store) migrate(ctx context.Context, from int) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.openError("cannot be upgraded", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := s.inTx(ctx, tx); err != nil {
		return s.openError("cannot be upgraded", err)
	}
	if _, err := tx.Exec(ctx, `SELECT version FROM field_format WHERE id = 1 FOR UPDATE`); err != nil {
		return s.openError("cannot be upgraded", err)
	}
	for i := from; i < Version; i++ {
		if _, err := tx.Exec(ctx, migrations[i]); err != nil {
			return s.openError(fmt.Sprintf("cannot be upgraded (migration %d)", i+1), err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE field_format SET version = $1`, Version); err != nil {
		return s.openError("cannot be upgraded", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.openError("cannot be upgraded", err)
	}
	return nil
}

// Name is the connection string without its password.
func (s *Store) Name() string { return s.name }

// Schema is the schema the field lives in.
func (s *Store) Schema() string { return s.schema }

// ReadOnly reports whether writes are refused.
func (s *Store) ReadOnly() bool { return s.readOnly }

// ReadOnlyReason is always "": a server's field is read-only only when
// asked (the server refuses what a role may not write on its own).
func (s *Store) ReadOnlyReason() string { return "" }

// Close stops listening and closes the connections.
func (s *Store) Close() error {
	if s.changes != nil {
		s.changes.close()
	}
	s.pool.Close()
	return nil
}
