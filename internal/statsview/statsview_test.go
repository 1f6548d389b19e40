package statsview

import (
	"strings"
	"testing"
	"time"

	"arbiter/model"

	"github.com/charmbracelet/x/ansi"
)

func TestBarsAndSparklinesAreCharactersToTheEighth(t *testing.T) {
	for _, c := range []struct {
		v, most float64
		w       int
		want    string
	}{
		{10, 10, 4, "████"}, {5, 10, 4, "██  "}, {1, 10, 4, "▍   "}, {0.01, 10, 4, "▏   "}, {0, 10, 4, "    "},
	} {
		if got := Bar(c.v, c.most, c.w); got != c.want {
			t.Errorf("Bar(%v, %v, %d) = %q, want %q", c.v, c.most, c.w, got, c.want)
		}
	}
	if got := Sparkline([]int{0, 1, 4, 8}, 8); got != " ▁▄█" {
		t.Errorf("Sparkline = %q", got)
	}
	for ms, want := range map[int64]string{450: "450ms", 45_000: "45s", 180_000: "3m", 7_500_000: "2h 5m", 3*86_400_000 + 4*3_600_000: "3d 4h"} {
		if got := Duration(ms); got != want {
			t.Errorf("Duration(%d) = %q, want %q", ms, got, want)
		}
	}
}

// The figures fit the width asked for, carry no terminal control from
// the field's names, and write each figure as a number too.
func TestRenderFitsTheWidthAndNamesAreSafe(t *testing.T) {
	s := model.Stats{Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Now: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Open:     []model.OpenCount{{Status: model.StatusEscalated, Type: model.ConflictFactual, Count: 7, UnderDay: 7}},
		Days:     []model.DayCount{{Day: "2026-11-01", Opened: 3, Decided: 1}, {Day: "2026-11-02", Opened: 1}},
		Pairs:    []model.PairCount{{AgentA: "evil\x1b[2J", AgentB: "b", Conflicts: 4}},
		Owners:   []model.OwnerLoad{{Owner: "", Open: 2, Overdue: 1}},
		Voters:   []model.VoterTally{{Voter: "lead", Cast: 3, Missed: 2}},
		Outcomes: []model.AgentOutcome{{Agent: "a", Won: 1, Lost: 2}},
	}
	out := Render(s, 60, Styles{})
	if strings.Contains(out, "\x1b") {
		t.Errorf("a control sequence reached the output: %q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(line); w > 60 {
			t.Errorf("a line of %d cells: %q", w, line)
		}
	}
	for _, want := range []string{"Open conflicts: 7", "escalated", " 7", "opened   █▃ 4", "evil␛[2J × b", "operators", "1 overdue", "3 cast · 2 missed", "2 lost · 1 won"} {
		if !strings.Contains(out, want) {
			t.Errorf("the figures lack %q:\n%s", want, out)
		}
	}
}

// A line wider than the width is wrapped at a space, the rest indented,
// never cut in a word: every word of it is still there.
func TestRenderWrapsALongLineAtWords(t *testing.T) {
	s := model.Stats{Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Now: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Open: []model.OpenCount{
			{Status: model.StatusEscalated, Type: model.ConflictFactual, Count: 2, UnderDay: 2},
			{Status: model.StatusEscalated, Type: model.ConflictInterpretive, Count: 1, UnderDay: 1},
			{Status: model.StatusEscalated, Type: model.ConflictPriority, Count: 1, UnderDay: 1},
			{Status: model.StatusEscalated, Type: model.ConflictStrategic, Count: 1, UnderDay: 1},
		}}
	out := Render(s, 80, Styles{})
	for _, line := range strings.Split(out, "\n") {
		if ansi.StringWidth(line) > 80 || strings.Contains(line, "…") {
			t.Errorf("a line cut or too wide: %q", line)
		}
	}
	flat := strings.Join(strings.Fields(out), " ")
	if want := "factual 2, interpretive 1, priority 1, strategic 1 · age <1h 0, <1d 5, <1w 0, older 0"; !strings.Contains(flat, want) {
		t.Errorf("the wrapped figures lost words; want %q in:\n%s", want, out)
	}
}
