package postgres

import (
	"context"
	"errors"
	"strings"

	"arbiter/model"
	"arbiter/store"

	"github.com/jackc/pgx/v5/pgconn"
)

// The errors every engine returns.
var (
	ErrNotFound = store.ErrNotFound
	ErrStale    = store.ErrStale
)

// translate turns the server's and the driver's failures into protocol
// errors a person can act on. The engine's own answers (ErrNotFound,
// ErrStale, protocol errors) and the caller's cancellation pass through;
// no message carries the connection's password.
func (s *Store) translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := model.AsError(err); ok {
		return err
	}
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrStale) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := s.scrub(pe.Message)
		switch {
		case pe.Code == "55P03": // lock_not_available: lock_timeout
			return model.Errorf(op, model.CodeFieldBusy, "try again in a moment",
				"another writer held what this write needs longer than the busy timeout; nothing was written")
		case pe.Code == "40P01" || pe.Code == "40001": // deadlock, serialization failure
			return model.Errorf(op, model.CodeFieldBusy, "try again in a moment",
				"the write met other writers %d times in a row and gave up; nothing was written", maxAttempts)
		case pe.Code == "53300" || pe.Code == "57P03": // too_many_connections, cannot_connect_now
			return model.Errorf(op, model.CodeFieldBusy, "try again in a moment", "the field's server has no connection to spare: %s", msg)
		case pe.Code == "53100": // disk_full
			return model.Errorf(op, model.CodeStorageFull, "free disk space on the server and try again",
				"the server's disk is full; nothing was written")
		case pe.Code == "25006": // read_only_sql_transaction
			return model.Errorf(op, model.CodeReadOnly, "open the field without --read-only, on a server that takes writes",
				"the field is read-only here (%s); nothing was written", msg)
		case pe.Code == "22021" || pe.Code == "22P05": // a NUL byte or invalid UTF-8 in text
			return model.Errorf(op, model.CodeInvalidRequest, "remove NUL bytes and invalid UTF-8 from the text",
				"the text holds a NUL byte or is not valid UTF-8, which a PostgreSQL field cannot store (%s); nothing was written", msg)
		case pe.Code == "42501": // insufficient_privilege: grants, or the checks of who acts
			hint := "ask the field's administrator for the grant (docs/postgres.md)"
			if pe.Hint != "" {
				hint = s.scrub(pe.Hint)
			}
			return model.Errorf(op, model.CodeNotPermitted, hint, "the field's server refused: %s; nothing was written", msg)
		case pe.Code == "08P01": // what a pooler says when it refuses (pooler.go)
			return model.Errorf(op, model.CodeInternalError, "check the pooler's settings and the server, and try again",
				"the connection pooler in front of the field's server refused: %s; nothing was written", msg)
		case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P"): // connection, shutdown
			return model.Errorf(op, model.CodeInternalError, "check the server and try again",
				"lost the connection to the field's server: %s; nothing was written", msg)
		}
		return model.Errorf(op, model.CodeInternalError, "",
			"the field's server refused the write: %s (SQLSTATE %s); nothing was written", msg, pe.Code)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) || isConnectionLoss(err) {
		return model.Errorf(op, model.CodeInternalError, "check the server and try again",
			"lost the connection to the field's server: %s", s.scrub(err.Error()))
	}
	return scrubbed{err: err, text: s.scrub(err.Error())}
}

// isConnectionLoss recognises the driver's words for a connection that
// broke under a statement.
func isConnectionLoss(err error) bool {
	text := err.Error()
	for _, s := range []string{"conn closed", "unexpected EOF", "connection reset", "broken pipe", "failed to receive", "failed to write", "EOF"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
