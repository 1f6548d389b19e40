package mcpserver_test

import (
	"os"
	"testing"

	rt "arbiter/service/review/reviewtest"
)

// TestMain runs the server's tests on a SQLite field, then on one on
// PostgreSQL, whose changes arrive by LISTEN/NOTIFY (reviewtest.Main).
func TestMain(m *testing.M) { os.Exit(rt.Main(m)) }
