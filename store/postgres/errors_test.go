package postgres

import (
	"strings"
	"testing"

	"arbiter/model"

	"github.com/jackc/pgx/v5/pgconn"
)

// A pooler's refusal in the middle of a session is named as the
// pooler's, in one sentence, not as a lost connection.
func TestAPoolersRefusalInASessionIsNamed(t *testing.T) {
	s := &Store{}
	err := s.translate(model.OpMerge, &pgconn.PgError{Severity: "ERROR", Code: "08P01", Message: "query_wait_timeout"})
	pe, ok := model.AsError(err)
	if !ok || !strings.Contains(pe.Message, "the connection pooler in front of the field's server refused: query_wait_timeout") ||
		strings.Contains(pe.Message, "lost the connection") {
		t.Fatalf("got %v", err)
	}
}
