package cli

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/model"
)

// The figures `arbiter stats --json` prints are those plain SQL finds in
// the field, one question at a time.
func TestStatsJSONMatchesSQLOnTheField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", path, "--demo")
	var s model.Stats
	if err := json.Unmarshal([]byte(ok(t, "--db", path, "stats", "--json", "--since", "2000-01-01")), &s); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	open := 0
	for _, o := range s.Open {
		if want := count(`SELECT count(*) FROM conflicts WHERE status = ? AND type = ?`, o.Status, o.Type); o.Count != want {
			t.Errorf("open %s %s: %d, SQL says %d", o.Status, o.Type, o.Count, want)
		}
		if o.UnderHour+o.UnderDay+o.UnderWeek+o.Older != o.Count {
			t.Errorf("open %s %s: the ages add up to %d of %d", o.Status, o.Type, o.UnderHour+o.UnderDay+o.UnderWeek+o.Older, o.Count)
		}
		open += o.Count
	}
	if want := count(`SELECT count(*) FROM conflicts WHERE status <> 'resolved'`); open != want || open == 0 {
		t.Errorf("open conflicts: %d, SQL says %d", open, want)
	}

	// Time to decision, by type: the nearest rank of the durations SQL
	// lists in order.
	byType := 0
	for _, d := range s.DecisionTime {
		if d.Dimension != "type" {
			continue
		}
		byType += d.Count
		ms := `SELECT CAST(round((julianday(resolved_at) - julianday(detected_at)) * 86400000) AS INTEGER) AS ms
			FROM conflicts WHERE status = 'resolved' AND type = ? ORDER BY ms`
		rows, err := db.Query(ms, d.Key)
		if err != nil {
			t.Fatal(err)
		}
		var all []int64
		for rows.Next() {
			var v int64
			rows.Scan(&v)
			all = append(all, v)
		}
		rows.Close()
		p50, p90 := all[(50*len(all)+99)/100-1], all[(90*len(all)+99)/100-1]
		if d.Count != len(all) || d.P50MS != p50 || d.P90MS != p90 {
			t.Errorf("time to decision of %s: %d, p50 %d, p90 %d; SQL says %d, %d, %d", d.Key, d.Count, d.P50MS, d.P90MS, len(all), p50, p90)
		}
	}
	if want := count(`SELECT count(*) FROM conflicts WHERE status = 'resolved'`); byType != want || want == 0 {
		t.Errorf("decisions timed: %d, SQL says %d", byType, want)
	}

	for _, p := range s.Pairs {
		want := count(`SELECT count(*) FROM conflicts WHERE (agent_a = ?1 AND agent_b = ?2) OR (agent_a = ?2 AND agent_b = ?1)`, p.AgentA, p.AgentB)
		if p.Conflicts != want {
			t.Errorf("pair %s × %s: %d, SQL says %d", p.AgentA, p.AgentB, p.Conflicts, want)
		}
	}
	for _, o := range s.Outcomes {
		won := count(`SELECT count(*) FROM conflicts c JOIN units u ON u.id = c.winner_id WHERE c.status = 'resolved' AND u.agent_id = ?`, o.Agent)
		lost := count(`SELECT count(*) FROM conflicts c JOIN units u ON u.id = CASE WHEN c.winner_id = c.unit_a THEN c.unit_b ELSE c.unit_a END
			WHERE c.status = 'resolved' AND c.winner_id IS NOT NULL AND u.agent_id = ?`, o.Agent)
		if o.Won != won || o.Lost != lost {
			t.Errorf("%s won %d, lost %d; SQL says %d and %d", o.Agent, o.Won, o.Lost, won, lost)
		}
	}
	if len(s.Outcomes) == 0 || len(s.Pairs) == 0 {
		t.Errorf("no outcomes or pairs: %+v", s)
	}
	for _, o := range s.Owners {
		if want := count(`SELECT count(*) FROM conflicts WHERE status = 'escalated' AND coalesce(owner, '') = ?`, o.Owner); o.Open != want {
			t.Errorf("owner %q: %d open, SQL says %d", o.Owner, o.Open, want)
		}
	}
	for _, v := range s.Voters {
		if want := count(`SELECT count(*) FROM votes WHERE voter_id = ?`, v.Voter); v.Cast != want {
			t.Errorf("%s cast %d, SQL says %d", v.Voter, v.Cast, want)
		}
		// Votes closed without the voter's ballot, but for those the
		// demo's recusal kept them from (they wrote one of the units).
		missed := count(`SELECT count(*) FROM conflicts c WHERE vote_opened_at IS NOT NULL AND status <> 'pending_vote'
			AND NOT EXISTS (SELECT 1 FROM votes b WHERE b.conflict_id = c.id AND b.voter_id = ?1)
			AND agent_a <> ?1 AND agent_b <> ?1`, v.Voter)
		if v.Missed != missed {
			t.Errorf("%s missed %d, SQL says %d", v.Voter, v.Missed, missed)
		}
	}
	if len(s.Voters) == 0 {
		t.Error("no voters")
	}
	opened, decided := 0, 0
	for _, d := range s.Days {
		if want := count(`SELECT count(*) FROM conflicts WHERE substr(detected_at, 1, 10) = ?`, d.Day); d.Opened != want {
			t.Errorf("opened on %s: %d, SQL says %d", d.Day, d.Opened, want)
		}
		opened, decided = opened+d.Opened, decided+d.Decided
	}
	if want := count(`SELECT count(*) FROM conflicts`); opened != want {
		t.Errorf("opened in all: %d, SQL says %d", opened, want)
	}
	if want := count(`SELECT count(*) FROM conflicts WHERE status = 'resolved'`); decided != want {
		t.Errorf("decided in all: %d, SQL says %d", decided, want)
	}
}

func TestStatsSinceTakesDatesAndSpans(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d": now.Add(-7 * 24 * time.Hour), "36h": now.Add(-36 * time.Hour), "2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01T10:00:00Z": time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), "": {},
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	path := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", path, "--demo")
	r := arbiter(t, "--db", path, "stats", "--since", "last week")
	wantExit(t, r, 2)
	if !strings.Contains(r.stderr, `--since "last week": give a date`) {
		t.Errorf("stderr: %s", r.stderr)
	}
	out := ok(t, "--db", path, "stats", "--width", "80")
	for _, want := range []string{"Open conflicts: 13", "escalated", "Time to decision", "Escalations open, by owner", "ops-maya"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Errorf("a line of %d columns at --width 80: %q", w, line)
		}
	}
}
