package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"arbiter/internal/statsview"
	"arbiter/model"

	"github.com/charmbracelet/x/ansi"
)

// The stats screen opens from the queue and shows the figures the field
// gives `arbiter stats`, readable at 80×24 without colour, and scrolls
// to the last of them.
func TestTheStatsScreenShowsTheFieldsFigures(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "ops-maya", 80, 24)
	s.waitFor("▸ conflict-008")
	s.keys("#")
	f := s.waitFor("Open conflicts: 13", "escalated")
	want, err := svc.Stats(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(f, "\n")
	for _, l := range lines {
		if w := len([]rune(strings.TrimRight(l, " "))); w > 80 {
			t.Errorf("a line of %d cells at 80 columns: %q", w, l)
		}
	}
	bar := false
	for _, l := range lines {
		bar = bar || (strings.HasPrefix(l, "escalated") && strings.Contains(l, "█") && strings.HasSuffix(strings.TrimRight(l, " "), " 5"))
	}
	if !bar {
		t.Errorf("no bar for the 5 escalated conflicts:\n%s", f)
	}
	// Every owner's line, as the figures say, at the end.
	s.keys("G")
	f = s.waitFor("Fallbacks executed")
	for _, o := range want.Owners {
		name := o.Owner
		if name == "" {
			name = "operators"
		}
		line := fmt.Sprintf("%d open · ", o.Open)
		if !strings.Contains(f, name) || !strings.Contains(f, line) {
			t.Errorf("the screen lacks %s's %q:\n%s", name, line, f)
		}
	}
	for _, v := range want.Voters {
		if !strings.Contains(f, fmt.Sprintf("%d cast · %d missed", v.Cast, v.Missed)) {
			t.Errorf("the screen lacks %s's ballots:\n%s", v.Voter, f)
		}
	}
	// Without colour the bars are still there: they are characters.
	plain := statsview.Render(want, 80, statsview.Styles{})
	if !strings.Contains(plain, "█") || strings.Contains(plain, "\x1b[") {
		t.Errorf("the plain figures should have bars and no escape:\n%s", plain)
	}
	s.keys("esc")
	s.waitFor("▸ conflict-008")
}

// Time to decision by person lists people only (not agents, not
// "vote"); the screen says when it read the figures, and reads them
// again when the field changes while it is open: at 80×24 and 160×48.
func TestTheStatsListPeopleOnlyAndFollowTheField(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			path := demoField(t)
			svc := openService(t, path, false)
			s := start(t, svc, "ops-maya", size.w, size.h)
			s.waitFor("▸ conflict-008")
			s.press(s.k.Stats)
			s.waitFor("Open conflicts: 13", "Read at "+screenNow.Format("15:04:05"), keyOf(s.k.Refresh)+" reads them now")
			f := ansi.Strip(strings.Join(s.m.statsLines(size.w), "\n")) // all of the figures, drawn
			person := f[strings.Index(f, "by person"):]
			if end := strings.Index(person, "\n\n"); end > 0 {
				person = person[:end]
			}
			if !strings.Contains(person, "ops-maya") || strings.Contains(person, "plan-juno") || strings.Contains(person, " vote ") {
				t.Errorf("by person lists more than the people who decided:\n%s", person)
			}
			for _, l := range strings.Split(f, "\n") {
				if strings.Contains(strings.ReplaceAll(l, " … ", ""), "…") {
					t.Errorf("a line is cut: %q", l)
				}
			}
			f = s.waitFor("Read at")
			golden(t, fmt.Sprintf("stats-%dx%d", size.w, size.h), f)

			other := openService(t, path, false)
			if _, err := other.Merge(context.Background(), "ops-maya", model.MergeRequest{ConflictID: "conflict-011",
				Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "Not a real conflict."}}); err != nil {
				t.Fatal(err)
			}
			s.waitFor("Open conflicts: 12")
		})
	}
}
