package storetest

import (
	"reflect"
	"slices"
	"testing"

	"arbiter/model"
	"arbiter/store"
)

// queueField holds conflicts in every status over fresh pairs of units:
// c1 detected (factual, epoch 10), c2 escalated (priority, 11), c3
// pending_vote (factual, 12), c4 resolved (interpretive, 13), c5
// escalated (factual, 14); units u1a/u1b … by a1 and a2, whose text
// names them ("text of c3 A") and, for c5, a word with diacritics.
func queueField(t *testing.T, e Engine) store.Field {
	t.Helper()
	st, _ := field(t, e)
	specs := []struct {
		id     string
		status model.ConflictStatus
		typ    model.ConflictType
	}{
		{"c1", model.StatusDetected, model.ConflictFactual},
		{"c2", model.StatusEscalated, model.ConflictPriority},
		{"c3", model.StatusPendingVote, model.ConflictFactual},
		{"c4", model.StatusResolved, model.ConflictInterpretive},
		{"c5", model.StatusEscalated, model.ConflictFactual},
	}
	write(t, st, func(tx store.Tx) error {
		for i, s := range specs {
			a, b := unit(s.id+"-a", int64(2*i+1)), unit(s.id+"-b", int64(2*i+2))
			a.Content, b.Content = "text of "+s.id+" A", "text of "+s.id+" B: settlement drift in eu-west"
			b.Source.AgentID, b.Source.AgentRole = "a2", "r2"
			if s.id == "c5" {
				a.Content = "Le résumé dit: **latence** élevée"
			}
			for _, u := range []model.Unit{a, b} {
				if _, err := tx.UnitInsert(u); err != nil {
					return err
				}
			}
			c := model.Conflict{ID: s.id, Type: s.typ, Status: s.status, UnitA: a.ID, UnitB: b.ID,
				Description: "about " + s.id, DetectedBy: model.DetectedExplicit, DetectedAt: now(), Epoch: int64(10 + i)}
			if s.status == model.StatusResolved {
				c.Resolution = &model.Resolution{Strategy: model.Dismiss, Rationale: "no", ResolvedBy: "a2", EpochResolved: 20, ResolvedAt: now()}
			}
			if s.status == model.StatusEscalated {
				c.Escalation = &model.Escalation{By: "a1", Reason: "people", Epoch: 15, At: now()}
			}
			if _, err := tx.ConflictInsert(c); err != nil {
				return err
			}
		}
		return nil
	})
	return st
}

func ids(rows []model.ConflictSummary) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

func list(t *testing.T, st store.Field, q model.ListQuery) []string {
	t.Helper()
	var rows []model.ConflictSummary
	read(t, st, func(tx store.Tx) (err error) { rows, err = tx.ConflictList(q); return err })
	return ids(rows)
}

func testList(t *testing.T, e Engine) {
	st := queueField(t, e)
	for _, tc := range []struct {
		q    model.ListQuery
		want []string
	}{
		{model.ListQuery{}, []string{"c1", "c2", "c3", "c4", "c5"}},
		{model.ListQuery{Statuses: model.ReviewStatuses}, []string{"c2", "c3", "c5"}},
		{model.ListQuery{Statuses: []model.ConflictStatus{model.StatusEscalated}}, []string{"c2", "c5"}},
		{model.ListQuery{Statuses: []model.ConflictStatus{model.StatusDetected, model.StatusResolved}}, []string{"c1", "c4"}},
		{model.ListQuery{Statuses: model.ReviewStatuses, Sort: model.SortType}, []string{"c3", "c5", "c2"}},
		{model.ListQuery{Sort: model.SortType}, []string{"c1", "c3", "c5", "c4", "c2"}},
		{model.ListQuery{Limit: 2, Offset: 1}, []string{"c2", "c3"}},
		{model.ListQuery{Statuses: model.ReviewStatuses, Limit: 1, Offset: 2}, []string{"c5"}},
		{model.ListQuery{Statuses: model.ReviewStatuses, Limit: 10, Offset: 5}, []string{}},
	} {
		if got := list(t, st, tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.q, got, tc.want)
		}
	}
	var rows []model.ConflictSummary
	read(t, st, func(tx store.Tx) (err error) {
		rows, err = tx.ConflictList(model.ListQuery{Statuses: model.ReviewStatuses})
		return err
	})
	for _, r := range rows {
		if r.AgentA != "a1" || r.RoleA != "r" || r.AgentB != "a2" || r.RoleB != "r2" {
			t.Errorf("%s's authors: %s (%s), %s (%s)", r.ID, r.AgentA, r.RoleA, r.AgentB, r.RoleB)
		}
		if (r.Status == model.StatusPendingVote) != (r.Tally != nil) {
			t.Errorf("%s (%s) has tally %+v", r.ID, r.Status, r.Tally)
		}
	}
	// ConflictEach yields what ConflictList returns, and stops on error.
	var each []string
	read(t, st, func(tx store.Tx) error {
		return tx.ConflictEach(model.ListQuery{}, func(s model.ConflictSummary) error {
			each = append(each, s.ID)
			return nil
		})
	})
	if !slices.Equal(each, []string{"c1", "c2", "c3", "c4", "c5"}) {
		t.Errorf("ConflictEach: %v", each)
	}
}

// The filter: every word matches what the queue shows (ids, statuses,
// types, authors, description, in any case) or begins a word of either
// unit's text (from two letters on, diacritics aside).
func testSearch(t *testing.T, e Engine) {
	st := queueField(t, e)
	review := model.ReviewStatuses
	for _, tc := range []struct {
		search   string
		statuses []model.ConflictStatus
		want     []string
	}{
		{"c3", nil, []string{"c3"}},
		{"C3", nil, []string{"c3"}},
		{"pending", nil, []string{"c3"}},
		{"priority", nil, []string{"c2"}},
		{"about", review, []string{"c2", "c3", "c5"}},
		{"settle", review, []string{"c2", "c3", "c5"}},        // begins a word of unit B's text
		{"ettlement", nil, []string{}},                        // inside a word of a unit: no
		{"eu-west", review, []string{"c2", "c3", "c5"}},       // the words in sequence
		{"west", nil, []string{"c1", "c2", "c3", "c4", "c5"}}, // part of a compound word
		{"resume", nil, []string{"c5"}},                       // diacritics aside
		{"RÉSUMÉ", nil, []string{"c5"}},
		{"latence élev", nil, []string{"c5"}}, // every word
		{"latence c2", nil, []string{}},
		{"a2", review, []string{"c2", "c3", "c5"}}, // an author
		{"c5-b", nil, []string{"c5"}},              // a unit's id
		{"%", nil, []string{}},
		{"_", nil, []string{"c3"}}, // pending_vote, and only it: '_' is no wildcard
	} {
		if got := list(t, st, model.ListQuery{Statuses: tc.statuses, Search: tc.search}); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("search %q in %v: %v, want %v", tc.search, tc.statuses, got, tc.want)
		}
	}
}

// The queue's authors and ballot counts are kept by the field's
// triggers: a ballot cast, changed or cleared shows at once, whoever
// wrote it.
func testQueueRowFollowsBallots(t *testing.T, e Engine) {
	st, name := field(t, e)
	pair(t, st, model.StatusPendingVote)
	row := func() model.ConflictSummary {
		t.Helper()
		var rows []model.ConflictSummary
		read(t, st, func(tx store.Tx) (err error) {
			rows, err = tx.ConflictList(model.ListQuery{Statuses: model.ReviewStatuses})
			return err
		})
		if len(rows) != 1 || rows[0].ID != "c1" {
			t.Fatalf("queue %+v, want c1 alone", rows)
		}
		return rows[0]
	}
	want := func(forA, forB int) {
		t.Helper()
		got := row()
		if got.AgentA != "a1" || got.RoleA != "r" || got.AgentB != "a2" || got.RoleB != "r2" {
			t.Errorf("authors %s (%s) vs %s (%s), want a1 (r) vs a2 (r2)", got.AgentA, got.RoleA, got.AgentB, got.RoleB)
		}
		if got.Tally == nil || got.Tally.ForA != forA || got.Tally.ForB != forB {
			t.Errorf("tally %+v, want %d for A and %d for B", got.Tally, forA, forB)
		}
	}
	ballot := func(voter, choice string) {
		t.Helper()
		write(t, st, func(tx store.Tx) error {
			return tx.BallotPut(model.Ballot{ConflictID: "c1", VoterID: voter, Choice: choice, Rationale: "why", Epoch: 4, CastAt: now()})
		})
	}
	want(0, 0)
	ballot("a1", "u1")
	want(1, 0)
	ballot("a2", "u1")
	want(2, 0)
	ballot("a2", "u2") // a changed ballot moves, it is not counted twice
	want(1, 1)
	// Another program's SQL is counted the same.
	exec(t, e, name, `UPDATE votes SET choice = 'u2' WHERE voter_id = 'a1'`)
	want(0, 2)
	exec(t, e, name, `DELETE FROM votes WHERE voter_id = 'a2'`)
	want(0, 1)
	write(t, st, func(tx store.Tx) error { return tx.BallotClear("c1") })
	want(0, 0)
}

// The counts per status follow every insert, change of status and
// delete, by arbiter or by another program's SQL.
func testCounts(t *testing.T, e Engine) {
	st, name := field(t, e)
	pair(t, st, model.StatusPendingVote)
	check := func(when string, want map[model.ConflictStatus]int) {
		t.Helper()
		var got map[model.ConflictStatus]int
		read(t, st, func(tx store.Tx) (err error) { got, err = tx.ConflictCount(); return err })
		full := map[model.ConflictStatus]int{}
		for _, s := range model.ConflictStatuses {
			full[s] = want[s]
		}
		if !reflect.DeepEqual(got, full) {
			t.Errorf("%s: counts %v, want %v", when, got, full)
		}
	}
	check("one pending vote", map[model.ConflictStatus]int{model.StatusPendingVote: 1})
	for _, step := range []struct {
		sql  string
		want map[model.ConflictStatus]int
	}{
		{`INSERT INTO conflicts (id, type, status, unit_a, unit_b, detected_by, detected_at, epoch)
			VALUES ('c2', 'factual', 'detected', 'u2', 'u1', 'semantic', '2026-01-01T00:00:00Z', 5)`,
			map[model.ConflictStatus]int{model.StatusPendingVote: 1, model.StatusDetected: 1}},
		{`UPDATE conflicts SET status = 'escalated', escalated_by = 'a1' WHERE id = 'c2'`,
			map[model.ConflictStatus]int{model.StatusPendingVote: 1, model.StatusEscalated: 1}},
		{`UPDATE conflicts SET description = 'no status change' WHERE id = 'c2'`,
			map[model.ConflictStatus]int{model.StatusPendingVote: 1, model.StatusEscalated: 1}},
		{`UPDATE conflicts SET status = 'resolved', strategy = 'dismiss' WHERE id = 'c1'`,
			map[model.ConflictStatus]int{model.StatusResolved: 1, model.StatusEscalated: 1}},
		{`DELETE FROM conflicts WHERE id = 'c2'`,
			map[model.ConflictStatus]int{model.StatusResolved: 1}},
	} {
		exec(t, e, name, step.sql)
		check(step.sql, step.want)
	}
}

// The word index follows the conflicts whoever writes them: a new
// conflict's units' words are found, a changed description's new words
// replace the old, a changed unit's text is found, and a deleted conflict
// is no longer found.
func testWordIndex(t *testing.T, e Engine) {
	st, name := field(t, e)
	pair(t, st, model.StatusDetected)
	find := func(word string) []string { return list(t, st, model.ListQuery{Search: word}) }
	exec(t, e, name, `INSERT INTO units (id, mode, type, content, intent_purpose, confidence_evidence, confidence_assumptions,
			agent_id, agent_role, recorded_at, status, epoch)
			VALUES ('u3', 'committed', 'finding', 'Settlement drift is **rounding**.', 'p', '[]', '[]', 'a1', 'r', '2026-01-01T00:00:00Z', 'active', 7)`)
	exec(t, e, name, `INSERT INTO conflicts (id, type, status, unit_a, unit_b, description, detected_by, detected_at, epoch)
			VALUES ('c9', 'factual', 'detected', 'u3', 'u1', 'about drift', 'semantic', '2026-01-01T00:00:00Z', 8)`)
	if got := find("roundin"); !reflect.DeepEqual(got, []string{"c9"}) {
		t.Errorf("a unit's word: %v, want c9", got)
	}
	exec(t, e, name, `UPDATE conflicts SET description = 'about ledgers' WHERE id = 'c9'`)
	if got := find("ledgers"); len(got) != 1 {
		t.Errorf("the new description's word: %v", got)
	}
	if got := find("drift"); len(got) != 1 { // still in u3's text
		t.Errorf("the unit's word after the description changed: %v", got)
	}
	exec(t, e, name, `UPDATE units SET content = 'Reconciliation pending' WHERE id = 'u3'`)
	if got := find("reconcil"); !reflect.DeepEqual(got, []string{"c9"}) {
		t.Errorf("a unit's new text: %v, want c9", got)
	}
	if got := find("roundin"); len(got) != 0 {
		t.Errorf("a unit's old text is still found: %v", got)
	}
	exec(t, e, name, `DELETE FROM conflicts WHERE id = 'c9'`)
	if got := find("reconcil"); len(got) != 0 {
		t.Errorf("a deleted conflict is still found: %v", got)
	}
}
