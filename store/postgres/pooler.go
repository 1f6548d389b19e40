package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"arbiter/store"
	"arbiter/store/sqlcore"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Behind a connection pooler.
//
// A pooler in transaction pooling mode (pgbouncer's pool_mode =
// transaction, what most managed PostgreSQL services put in front) hands
// each transaction whichever server connection is free: nothing a
// session sets survives its transaction. So, behind one, the field
//
//   - sends no startup parameters but application_name (pgbouncer
//     refuses the others): the schema (search_path), the busy timeout
//     (lock_timeout) and idle_in_transaction_session_timeout are set
//     with set_config(…, true) at the start of every transaction, in the
//     same round trip as BEGIN, and statements outside a transaction of
//     the field's own go in one implicit transaction with them;
//   - prepares no named statement: pgx runs every statement as the
//     unnamed one (QueryExecModeExec), its parameters' types taken from
//     their Go types, still one round trip per statement. A named
//     statement, which pgx caches per connection by default, would be
//     met on another client's server connection ("prepared statement …
//     already exists") or missed on one that never saw it; describing a
//     statement before running it (QueryExecModeCacheDescribe) would do
//     it outside the transaction that sets the schema;
//   - listens for changes only on the connection listen_db names (LISTEN
//     belongs to a session; through the pooler it would miss
//     notifications without a word), and without one polls the change number
//     every pollPooled and says so (Polling).
//
// A direct connection keeps the startup parameters and pgx's cache of
// prepared statements, which spares the server parsing and planning
// each statement again. Open tells them apart: it connects as to a
// server, and takes the other side for a pooler when it refuses a
// startup parameter, or when the process id the connection announced is
// not that of the backend that answers (a pooler makes up its own).

// sessionSettings are the settings every transaction of the field runs
// with, in the order of setLocalSQL's parameters.
func sessionSettings(schema string, busyMillis int64) []any {
	return []any{pgx.Identifier{schema}.Sanitize(), fmt.Sprint(busyMillis), "60000"}
}

// setLocalSQL sets sessionSettings for the transaction it runs in.
const setLocalSQL = `SELECT set_config('search_path', $1, true), set_config('lock_timeout', $2, true),
	set_config('idle_in_transaction_session_timeout', $3, true)`

// probe asks the server behind pool which backend answers: whether a
// pooler stands between (see above). It sends nothing a pooler could
// trip on: no prepared statement, no parameter.
func probe(ctx context.Context, pool *pgxpool.Pool) (pooled bool, err error) {
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer pc.Release()
	var pid uint32
	if err := pc.Conn().QueryRow(ctx, `SELECT pg_backend_pid()`, pgx.QueryExecModeSimpleProtocol).Scan(&pid); err != nil {
		return false, err
	}
	return pid != pc.Conn().PgConn().PID(), nil
}

// refusedStartup reports whether err is a pooler refusing a startup
// parameter ("unsupported startup parameter: search_path").
func refusedStartup(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.Contains(pe.Message, "unsupported startup parameter")
}

// forPooler changes cfg, parsed from the connection string, into one for
// a pooler: no startup parameter but application_name (and the
// connection string's own, less the schema), no named statements.
func forPooler(cfg *pgxpool.Config) {
	rp := cfg.ConnConfig.RuntimeParams
	for _, k := range []string{"search_path", "lock_timeout", "idle_in_transaction_session_timeout", "default_transaction_read_only"} {
		delete(rp, k)
	}
	if searchPathOption(rp["options"]) != "" {
		delete(rp, "options")
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.ConnConfig.StatementCacheCapacity = 0
	cfg.ConnConfig.DescriptionCacheCapacity = 0
}

// Pooled reports whether a connection pooler stands between the field
// and its server.
func (s *Store) Pooled() bool { return s.pooled }

// queryRow is one statement outside a transaction of the field's: behind
// a pooler it goes in one implicit transaction with the settings.
func (s *Store) queryRow(ctx context.Context, sql string, args ...any) sqlcore.Row {
	if !s.pooled {
		return s.pool.QueryRow(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(setLocalSQL, s.local...)
	b.Queue(sql, args...)
	br := s.pool.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return sqlcore.FirstRow(nil, err)
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return sqlcore.FirstRow(nil, err)
	}
	return sqlcore.FirstRow(batchRows{Rows: rows, br: br}, nil)
}

// inTx gives a transaction begun outside Tx (creating, upgrading) the
// field's settings behind a pooler; a direct connection has them.
func (s *Store) inTx(ctx context.Context, tx pgx.Tx) error {
	if !s.pooled {
		return nil
	}
	_, err := tx.Exec(ctx, setLocalSQL, s.local...)
	return err
}

// connectError says why a connection could not be made, in one
// sentence and without the driver's words: "cannot be reached" only
// when nothing answered; a refusal names who refused — the server, or
// the pooler in front of it — and what it said.
func (s *Store) connectError(err error) *store.OpenError {
	kept := scrubbed{err: err, text: s.scrub(err.Error())}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &store.OpenError{Name: s.name, Reason: "was refused by " + refuser(pe) + ": " + s.scrub(pe.Message), Err: kept}
	}
	why := s.scrub(err.Error())
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded):
		why = "no answer within the connect timeout"
	case errors.As(err, &dns):
		why = "no such host: " + dns.Name
	case errors.As(err, &op) && op.Err != nil:
		why = op.Err.Error() // "connect: connection refused"
	}
	return &store.OpenError{Name: s.name, Reason: "cannot be reached (" + why + "): " + s.reachHint(), Err: kept}
}

// reachHint is what to check when nothing answered at the server's
// address: that a server runs there, and that --db names it.
func (s *Store) reachHint() string {
	if s.cfg == nil {
		return "check that the PostgreSQL server runs and that --db names its host and port"
	}
	c := s.cfg.ConnConfig
	where := fmt.Sprintf("host %s, port %d", c.Host, c.Port)
	check := fmt.Sprintf("pg_isready -h %s -p %d", c.Host, c.Port)
	if strings.HasPrefix(c.Host, "/") {
		where = fmt.Sprintf("the socket in %s, port %d", c.Host, c.Port)
	}
	return "check that the PostgreSQL server runs and listens at " + where + " (" + check + "), and that --db names that host and port"
}

// refuser names who refused: the server, or a pooler in front of it.
// pgbouncer answers with protocol_violation (08P01) for all it refuses
// itself (a startup parameter, a database it does not know, a pool that
// is full), which a PostgreSQL server sends only for a broken client.
func refuser(pe *pgconn.PgError) string {
	if pe.Code == "08P01" {
		return "the connection pooler in front of the server"
	}
	return "the server"
}
