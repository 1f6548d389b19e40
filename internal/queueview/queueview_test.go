package queueview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/model"
)

func TestParseReadsEveryTerm(t *testing.T) {
	v, err := Parse("Mine soon", "status:escalated,vote type:factual,priority owner:lead-Priya mine due:1d12h")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Statuses, []model.ConflictStatus{model.StatusEscalated, model.StatusPendingVote}) ||
		!slices.Equal(v.Types, []model.ConflictType{model.ConflictFactual, model.ConflictPriority}) ||
		v.Owner != "lead-Priya" || !v.Mine || v.Due != 36*time.Hour || v.Overdue || v.All {
		t.Errorf("parsed %+v", v)
	}
	if all, _ := Parse("All", "status:all"); all.List() != nil || !all.All {
		t.Errorf("status:all lists %v", all.List())
	}
	if def, _ := Parse("Overdue", "due:overdue"); !slices.Equal(def.List(), model.ReviewStatuses) || !def.Overdue || !def.Sifts() {
		t.Errorf("due:overdue = %+v", def)
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for query, want := range map[string]string{
		"status:open":  `"open" is not a status`,
		"type:moral":   `"moral" is not a conflict type`,
		"due:soonish":  "due:soonish is not overdue or a duration",
		"owner:":       "owner: needs me, operators or an id",
		"colour:red":   `unknown term "colour:red"`,
		"mine:perhaps": "mine:perhaps is not true or false",
		"":             "has no query",
		"status:":      "status: needs a value",
	} {
		_, err := Parse("V", query)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", query, err, want)
		}
	}
	if _, err := Parse(" ", "mine"); err == nil {
		t.Error("a view without a name was taken")
	}
}

func TestMatchKeepsRowsByTypeOwnerAndDeadline(t *testing.T) {
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	in := func(d time.Duration) *time.Time { at := now.Add(d); return &at }
	row := func(typ model.ConflictType, owner string, deadline *time.Time) model.ConflictSummary {
		return model.ConflictSummary{Conflict: model.Conflict{Type: typ, Status: model.StatusEscalated,
			Route: &model.Route{Owner: owner, Since: now.Add(-time.Hour), Deadline: deadline}}}
	}
	rows := []model.ConflictSummary{
		row(model.ConflictFactual, "lead-priya", in(2*time.Hour)),
		row(model.ConflictPriority, "", in(-time.Minute)),
		row(model.ConflictFactual, "ops-maya", nil),
	}
	for query, want := range map[string][]int{
		"type:factual":        {0, 2},
		"owner:me":            {0},
		"owner:operators":     {1},
		"owner:ops-maya":      {2},
		"due:overdue":         {1},
		"due:3h":              {0, 1},
		"due:1h type:factual": {},
	} {
		v, err := Parse("V", query)
		if err != nil {
			t.Fatal(err)
		}
		got := []int{}
		for i, r := range rows {
			if v.Match(r, "lead-priya", now) {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s keeps rows %v, want %v", query, got, want)
		}
	}
}
