package postgres

import (
	"os"
	"strings"
	"testing"

	"arbiter/model"
)

// TestWriteListSQL writes the query `arbiter list --json` runs for the
// open conflicts to the file $ARBITER_LIST_SQL: scripts/perf-postgres.sh
// gives it to psql, the floor the command is measured against.
func TestWriteListSQL(t *testing.T) {
	out := os.Getenv("ARBITER_LIST_SQL")
	if out == "" {
		t.Skip("set ARBITER_LIST_SQL to the file to write the query to")
	}
	sql, args := listConflictsSQL(model.ListQuery{Statuses: model.ReviewStatuses})
	if len(args) != 0 {
		t.Fatalf("the queue's query takes arguments: %v", args)
	}
	if err := os.WriteFile(out, []byte(sql+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTheQueueIsReadFromItsIndex pins the plan of the review queue's
// query: the partial index conflicts_queue, in order, no sort.
func TestTheQueueIsReadFromItsIndex(t *testing.T) {
	for _, q := range []model.ListQuery{
		{Statuses: model.ReviewStatuses},
		{Statuses: model.ReviewStatuses, Limit: 200},
	} {
		sql, _ := listConflictsSQL(q)
		if want := `c.status IN ('escalated', 'pending_vote')`; !strings.Contains(sql, want) {
			t.Errorf("%+v: the query does not spell the index's condition %q:\n%s", q, want, sql)
		}
	}
}
