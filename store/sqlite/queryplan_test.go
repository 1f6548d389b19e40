package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// tinyTables hold a handful of rows at most: scanning them is free.
var tinyTables = map[string]bool{"clock": true, "policy": true, "authority_roles": true, "agents": true, "conflict_counts": true}

// hotQueries are the queries the review screen and the command line run
// on every load, detail and decision, with the arguments they take.
func hotQueries() []struct {
	name string
	sql  string
	args []any
} {
	list := func(q model.ListQuery) (string, []any) { sql, args, _ := listConflictsSQL(q); return sql, args }
	type query = struct {
		name string
		sql  string
		args []any
	}
	var out []query
	add := func(name, sql string, args ...any) { out = append(out, query{name, sql, args}) }
	for _, l := range []struct {
		name string
		q    model.ListQuery
	}{
		{"list open by age (list --json)", model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge}},
		{"list open by type", model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortType}},
		{"queue page by age", model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge, Limit: 2000}},
		{"queue page by type", model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortType, Limit: 2000}},
		{"queue page filtered", model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge, Search: "lead", Limit: 2000}},
		{"queue page, all statuses, by age", model.ListQuery{Sort: model.SortAge, Limit: 2000}},
		{"queue page, all statuses, by type", model.ListQuery{Sort: model.SortType, Limit: 2000}},
		{"list one status", model.ListQuery{Statuses: []model.ConflictStatus{model.StatusEscalated}, Sort: model.SortAge}},
	} {
		sql, args := list(l.q)
		add(l.name, sql, args...)
	}
	add("counts per status", sqlcore.CountConflictsSQL)
	add("conflict by id", sqlcore.ConflictSQL, "conflict-001")
	add("unit by id, with its relations", dialect.UnitSQL(), "mem-001")
	add("unit exists", sqlcore.UnitExistsSQL, "mem-001")
	add("relations of a unit", sqlcore.RelationsSQL, "mem-001")
	add("supporters of a unit", sqlcore.SupportersSQL, "mem-001")
	add("ballots of a conflict", sqlcore.BallotsSQL, "conflict-001")
	add("events of a conflict", sqlcore.EventsOfConflictSQL, "conflict-001")
	add("notifications of a conflict", sqlcore.NotificationsOfConflictSQL, "conflict-001")
	add("inbox", inboxSQL, "ops-maya", 0, 100)
	add("conflicts of a unit", sqlcore.ConflictsOfUnitSQL, "mem-001")
	add("agent by id", `SELECT id FROM agents WHERE id = $1`, "ops-maya")
	add("update a conflict", updateConflictSQL, bind(append(sqlcore.MutableArgs(model.Conflict{Status: model.StatusEscalated}), "conflict-001", 1))...)
	add("set a unit's status", sqlcore.SetUnitStatusSQL, "active", "mem-001")
	add("clear ballots", sqlcore.ClearBallots, "conflict-001")
	add("a voter's ballots on open votes", sqlcore.VotedOnSQL, "lead-1")
	add("next unit id", nextIDSQL("units"))
	add("next conflict id", nextIDSQL("conflicts"))
	add("what the deadlines ask for (every sweep)", sqlcore.DueSQL, "2026-11-20T09:00:00.000000000Z")
	add("count a reminder", `UPDATE conflicts SET reminded = $1 WHERE id = $2 AND reminded = $3`, 1, "conflict-001", 0)
	// Detection, on every RECORD where the field detects, and a scan.
	add("a word's newest units (detection)", candidatesSQL(2), 1000, 64, `"ledger"`, `"frankfurt"`)
	add("a purpose's newest units (detection)", sqlcore.UnitsByPurposeSQL, "measure checkout latency", 1000, 4)
	add("a pair's conflict (detection)", `SELECT `+sqlcore.ConflictCols+` FROM conflicts c
		WHERE (c.unit_a = $1 AND c.unit_b = $2) OR (c.unit_a = $2 AND c.unit_b = $1) ORDER BY c.seq LIMIT 1`, "mem-001", "mem-002")
	add("a dismissed pair (detection)", `SELECT 1 FROM detect_dismissed WHERE unit_a = $1 AND unit_b = $2`, "mem-001", "mem-002")
	return out
}

// TestHotQueriesUseIndexes fails when a query the screen or the command
// line runs would read a whole table: on a field of a million units that
// is the difference between a millisecond and a second.
func TestHotQueriesUseIndexes(t *testing.T) {
	ctx := context.Background()
	st, err := Create(ctx, filepath.Join(t.TempDir(), "field.db"), model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, q := range hotQueries() {
		plan, err := explain(ctx, st, q.sql, q.args...)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		var text []string
		subqueries := map[string]bool{} // a subquery's rows: a page, at most LIMIT of them
		for _, step := range plan {
			text = append(text, step.detail)
			for _, kind := range []string{"CO-ROUTINE ", "MATERIALIZE "} {
				if name, ok := strings.CutPrefix(step.detail, kind); ok {
					subqueries[name] = true
				}
			}
		}
		t.Logf("%s:\n\t%s", q.name, strings.Join(text, "\n\t"))
		for _, step := range plan {
			if table, ok := fullScan(step.detail); ok && !tinyTables[table] && !subqueries[table] {
				t.Errorf("%s reads all of %s: %q\nquery: %s", q.name, table, step.detail, q.sql)
			}
			// An index scan is fine when it yields the rows in order, so
			// that LIMIT stops it; one sorted afterwards (a sort in the
			// same query) reads everything.
			// conflicts_queue holds only the conflicts open for review:
			// all of it is what the queue asks for.
			if table, ok := indexScan(step.detail); ok && !tinyTables[table] && sorted(plan, step.parent) &&
				!strings.HasSuffix(step.detail, "INDEX conflicts_queue") {
				t.Errorf("%s reads all of %s through an index, then sorts it: %q\nquery: %s", q.name, table, step.detail, q.sql)
			}
		}
	}
}

// TestReviewQueueIsOneIndexScan pins the review queue's plan: one scan of
// conflicts_queue in queue order, no join, no sort, and no read of the
// table, a search's too (it matches the packed rows, and looks its words
// up in conflicts_text once).
func TestReviewQueueIsOneIndexScan(t *testing.T) {
	ctx := context.Background()
	st, err := Create(ctx, filepath.Join(t.TempDir(), "field.db"), model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const covering = "SCAN conflicts USING COVERING INDEX conflicts_queue"
	for _, c := range []struct {
		q    model.ListQuery
		want string
	}{
		{model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge}, covering},
		{model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge, Limit: 2000, Offset: 2000}, covering},
		{model.ListQuery{Statuses: []model.ConflictStatus{model.StatusPendingVote}, Sort: model.SortAge}, covering},
		{model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortAge, Search: "lead"}, covering},
	} {
		query, args, packed := listConflictsSQL(c.q)
		plan, err := explain(ctx, st, query, args...)
		if err != nil {
			t.Fatal(err)
		}
		// A search adds the word index's lookup as a subquery, run once.
		top := 0
		for _, step := range plan {
			if step.parent == 0 && !strings.HasPrefix(step.detail, "LIST SUBQUERY") {
				top++
			}
		}
		if !packed || top != 1 || plan[0].detail != c.want {
			t.Errorf("%+v: plan %+v (packed %v), want %q and at most the text index's subquery", c.q, plan, packed, c.want)
		}
	}
}

// planStep is one line of EXPLAIN QUERY PLAN.
type planStep struct {
	id, parent int
	detail     string
}

// explain returns the steps of the query plan of sql.
func explain(ctx context.Context, st *Store, sql string, args ...any) ([]planStep, error) {
	rows, err := st.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []planStep
	for rows.Next() {
		var p planStep
		var unused int
		if err := rows.Scan(&p.id, &p.parent, &unused, &p.detail); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// sorted reports whether the (sub)query whose steps hang from parent sorts
// its rows after reading them.
func sorted(plan []planStep, parent int) bool {
	return slices.ContainsFunc(plan, func(p planStep) bool {
		return p.parent == parent && strings.HasPrefix(p.detail, "USE TEMP B-TREE FOR ORDER BY")
	})
}

// fullScan reports whether a plan step reads a table without an index,
// and which table (or alias).
func fullScan(step string) (string, bool) {
	rest, ok := strings.CutPrefix(step, "SCAN ")
	if !ok || strings.Contains(rest, " USING ") || strings.HasPrefix(rest, "CONSTANT ROW") {
		return "", false
	}
	// A full-text table asked to MATCH ("INDEX 0:M1") looks the words up
	// in its index.
	if _, idx, virtual := strings.Cut(rest, " VIRTUAL TABLE INDEX "); virtual && strings.Contains(idx, ":M") {
		return "", false
	}
	return strings.Fields(rest)[0], true
}

// indexScan reports whether a plan step walks a whole index, and which
// table (or alias).
func indexScan(step string) (string, bool) {
	rest, ok := strings.CutPrefix(step, "SCAN ")
	if !ok || !strings.Contains(rest, " USING ") {
		return "", false
	}
	return strings.Fields(rest)[0], true
}

func TestFullScanReadsPlans(t *testing.T) {
	for step, want := range map[string]string{
		"SCAN c":                             "c",
		"SCAN units":                         "units",
		"SCAN c USING INDEX conflicts_epoch": "",
		"SCAN units USING COVERING INDEX x":  "",
		"SEARCH c USING INDEX conflicts_status (status=?)": "",
		"SCAN CONSTANT ROW":            "",
		"USE TEMP B-TREE FOR ORDER BY": "",
	} {
		got, ok := fullScan(step)
		if got != want || ok != (want != "") {
			t.Errorf("fullScan(%q) = %q, %v; want %q", step, got, ok, want)
		}
	}
}

// TestWriteListSQL writes the query for the rows `arbiter list --json`
// prints for the open conflicts to the file $ARBITER_LIST_SQL:
// scripts/perf.sh gives it to the sqlite3 shell, the floor the command is
// measured against.
func TestWriteListSQL(t *testing.T) {
	out := os.Getenv("ARBITER_LIST_SQL")
	if out == "" {
		t.Skip("set ARBITER_LIST_SQL to the file to write the query to")
	}
	// The floor asks for what list --json prints, column by column, as
	// anyone would: arbiter's own packed query costs the shell more.
	sql := `SELECT ` + sqlcore.SummaryCols + ` FROM conflicts c WHERE c.status IN ('escalated', 'pending_vote') ORDER BY c.epoch, c.seq`
	if err := os.WriteFile(out, []byte(sql+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
