package tui

import (
	"regexp"
	"strings"
	"testing"

	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// The queue's first lines — the counts, what it shows and in what order,
// the table's header — fit at 80 and 120 columns without a cut.
func TestTheQueuesHeaderFitsAt80And120Columns(t *testing.T) {
	svc := openService(t, demoField(t), false)
	for _, w := range []int{80, 120} {
		s := start(t, svc, "lead-tomas", w, 24)
		f := s.waitFor("▸ conflict-")
		lines := strings.Split(f, "\n")
		for _, l := range lines[1:3] {
			if strings.Contains(l, "…") || ansi.StringWidth(l) > w {
				t.Errorf("at %d columns the queue's header is cut: %q", w, l)
			}
		}
		if !strings.Contains(lines[1], "showing waiting for people") || !strings.Contains(lines[2], "DESCRIPTION") {
			t.Errorf("at %d columns the header lacks what the queue shows:\n%s", w, f)
		}
		for _, l := range lines[3:] {
			if strings.Contains(l, "escalat…") {
				t.Errorf("at %d columns a status is cut: %q", w, l)
			}
		}
	}
}

// A pane that holds more than it shows says where it is: which lines of
// how many, and how many more are above; conflict-014's table of costs
// shows whole, as it did not in a pane 56 cells wide ("$7.3" for $7.3k,
// a header "Tota").
func TestAPaneSaysWhereItIsAndATableIsNeverClipped(t *testing.T) {
	svc := openService(t, demoField(t), false)
	for _, size := range [][2]int{{80, 24}, {120, 24}} {
		s := start(t, svc, "lead-priya", size[0], size[1])
		s.unhurried()
		s.waitFor("conflict-0")
		openByFilter(s, "conflict-014")
		s.keys("tab")
		s.waitFor("B mem-047", "Keep Quarry warm for 7 days")
		s.waitFormatted()
		f := s.Frame()
		if !regexp.MustCompile(`╰─+ 1–\d+ of \d+ ↓ ──╯`).MatchString(f) {
			t.Errorf("%v: the pane does not say which of its lines show:\n%s", size, f)
		}
		seen := f
		for range 12 {
			s.keys("j")
			f = s.Frame()
			seen += f
		}
		for _, want := range []string{"$7.3k", "$31.4k", "$13.4k", "Total", "On-call (two stacks)"} {
			if !strings.Contains(seen, want) {
				t.Errorf("%v: scrolled through, the table never shows %q:\n%s", size, want, f)
			}
		}
		if !regexp.MustCompile(`╭─+ ↑ \d+ more ──╮`).MatchString(f) {
			t.Errorf("%v: a pane scrolled down does not say how much is above:\n%s", size, f)
		}
	}
}

// The history opens at its latest entries and says how many more are
// above.
func TestTheHistorySaysThereIsMoreAbove(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 80, 24)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("Rules:")
	s.keys("h")
	f := s.waitFor("History")
	if !regexp.MustCompile(`╭─+ ↑ \d+ more ──╮`).MatchString(f) {
		t.Errorf("the history does not say that more is above:\n%s", f)
	}
	s.keys("g")
	f = s.waitFor("recorded a contradiction")
	if regexp.MustCompile(`↑ \d+ more`).MatchString(f) {
		t.Errorf("at its top the history still says more is above:\n%s", f)
	}
}

// A pane's labels keep its border as wide as the pane.
func TestAPanesLabelsKeepItsBorderWhole(t *testing.T) {
	st := NewStyles(Theme{NoColor: true})
	text := measure("one\ntwo", 20)
	for _, out := range []string{labeledBox(text, 20, 6, st.PaneBorder, "↑ 3 more", "4–7 of 9 ↑↓"), box(text, 20, 6, st.PaneBorder)} {
		for _, l := range strings.Split(ansi.Strip(out), "\n") {
			if w := ansi.StringWidth(l); w != 24 {
				t.Errorf("a line of the box is %d cells wide, want 24: %q", w, l)
			}
		}
	}
}

// A form taller than the screen shows the part that has the keyboard and
// says how much is above and below it.
func TestAFormTallerThanTheScreenSaysWhatIsAboveAndBelow(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 80, 16)
	s.waitFor("conflict-0")
	openByFilter(s, "conflict-014")
	s.keys("v")
	f := s.waitFor("▍For")
	if !regexp.MustCompile(`↑ \d+ more lines above`).MatchString(f) && !regexp.MustCompile(`↓ \d+ more lines below`).MatchString(f) {
		t.Errorf("the ballot, cut to the screen, does not say so:\n%s", f)
	}
	s.keys("tab")
	f = s.waitFor("▍Rationale")
	if !regexp.MustCompile(`↑ \d+ more lines above`).MatchString(f) {
		t.Errorf("scrolled to the rationale, the ballot does not say what is above:\n%s", f)
	}
}
