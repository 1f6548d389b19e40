package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/fieldgen"
)

func TestGenBuildsAFieldEveryCommandWorksOn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gen.db")
	out := ok(t, "gen", "--db", db, "--units", "2000", "--conflicts", "300", "--open", "40", "--seed", "3")
	for _, want := range []string{"units          2000", "conflicts      300", "escalated 20", "pending_vote 20", "for review     40 (escalated or put to a vote)"} {
		if !strings.Contains(out, want) {
			t.Errorf("gen printed no %q:\n%s", want, out)
		}
	}

	var rows []model.ConflictSummary
	if err := json.Unmarshal([]byte(ok(t, "list", "--db", db, "--json")), &rows); err != nil || len(rows) != 40 {
		t.Fatalf("list --json: %d rows, %v", len(rows), err)
	}
	var escalated, vote *model.ConflictSummary
	for i := range rows {
		switch rows[i].Status {
		case model.StatusEscalated:
			escalated = &rows[i]
		case model.StatusPendingVote:
			vote = &rows[i]
		}
	}
	d := showJSON(t, db, escalated.ID)
	ok(t, "merge", escalated.ID, "--db", db, "--as", fieldgen.Operator, "--strategy", "dismiss",
		"--rationale", "not a real conflict", "--expect-version", itoa(int(d.Conflict.Version)))
	if got := showJSON(t, db, escalated.ID).Conflict.Status; got != model.StatusResolved {
		t.Errorf("%s is %s after the merge", escalated.ID, got)
	}
	d = showJSON(t, db, vote.ID)
	voter := ""
	for _, l := range fieldgen.Leads {
		if !slices.ContainsFunc(d.Ballots, func(b model.Ballot) bool { return b.VoterID == l }) {
			voter = l
			break
		}
	}
	ok(t, "vote", vote.ID, "--db", db, "--as", voter, "--for", "A", "--rationale", "the method is sounder")
	if got := len(showJSON(t, db, vote.ID).Ballots); got != len(d.Ballots)+1 {
		t.Errorf("%s has %d ballots after voting, want %d", vote.ID, got, len(d.Ballots)+1)
	}
}

func TestGenRefusesAnExistingFieldAndImpossibleCounts(t *testing.T) {
	db := newField(t)
	r := arbiter(t, "gen", "--db", db, "--units", "100")
	wantExit(t, r, exitFailure)
	if !strings.Contains(r.stderr, "already exists") {
		t.Errorf("stderr: %s", r.stderr)
	}
	r = arbiter(t, "gen", "--db", filepath.Join(t.TempDir(), "x.db"), "--units", "100", "--conflicts", "90")
	wantExit(t, r, exitUsage)
	r = arbiter(t, "gen", "--db", filepath.Join(t.TempDir(), "x.db"), "--units", "100", "--conflicts", "10", "--open", "11")
	wantExit(t, r, exitUsage)
}
