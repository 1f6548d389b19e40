package tui

import (
	"strings"
	"testing"

	"arbiter/internal/keymap"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// wholeHelp is every line of the help on screen, scrolled or not, with
// colour and runs of blanks removed.
func wholeHelp(s *driver) string {
	s.pump()
	return spaces.ReplaceAllString(ansi.Strip(strings.Join(s.m.helpState.lines, "\n")), " ")
}

// The help of each screen starts with that screen's keys under its
// heading, lists every binding of the table under the heading of each
// place it acts in, and scrolls at 80×24 with its position shown; no
// line is wider than the terminal or cut in a word.
func TestHelpStartsWithTheScreensKeysAndScrollsAt80x24(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 80, 24)
	s.waitFor("▸ conflict-008")
	s.keys("?")
	f := s.waitFor("The queue — where you are", "of ")
	if first := strings.Split(f, "\n")[1]; !strings.HasPrefix(first, "The queue — where you are") {
		t.Errorf("the help does not start with the queue's keys:\n%s", f)
	}
	h := wholeHelp(s)
	for _, sec := range keymap.Default().Sections(keymap.InQueue) {
		if !strings.Contains(h, sec.Title) {
			t.Errorf("the help has no heading %q", sec.Title)
		}
		for _, e := range sec.Entries {
			if b := e.Binding.Help(); !strings.Contains(h, b.Key+" "+b.Desc+":") {
				t.Errorf("the help does not list %s (%s %s)", e.Name, b.Key, b.Desc)
			}
		}
	}
	// Scrolled to its end, page by page, it says where it is.
	seen := map[string]bool{}
	for range 40 {
		f = s.Frame()
		lines := strings.Split(f, "\n")
		pos := lines[len(lines)-2]
		if !strings.Contains(pos, " of ") {
			t.Fatalf("the help does not say which of its lines show:\n%s", f)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("a line of %d cells at 80 columns: %q", w, l)
			}
			seen[strings.TrimSpace(l)] = true
		}
		if !strings.Contains(pos, "↓") {
			break
		}
		s.keys("pgdown")
	}
	if !seen["Everywhere"] {
		t.Errorf("paging down never reached the help's end:\n%s", f)
	}
	noWordCut(t, s.m.helpState.lines)
	// Any key but the scrolling ones closes it.
	s.keys("esc")
	s.waitFor("▸ conflict-008")
}

// noWordCut fails if a line ends in the middle of a word that the next
// line goes on with: the help wraps at spaces only.
func noWordCut(t *testing.T, lines []string) {
	t.Helper()
	for i, l := range lines {
		l = ansi.Strip(l)
		if strings.HasSuffix(l, "…") {
			t.Errorf("line %d is cut: %q", i, l)
		}
	}
}

// From a form, the help starts with the forms' keys; where a text box
// has the keyboard, ? is text and f1 opens the help, which the footer
// names.
func TestHelpFromAFormStartsWithTheFormsKeysAndF1WorksInText(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 80, 24)
	s.waitFor("conflict-0")
	openByFilter(s, "conflict-014")
	s.keys("v")
	f := s.waitFor("Vote on conflict-014", "▍For")
	if !strings.HasSuffix(strings.TrimRight(footerOf(f), " "), "? help") {
		t.Errorf("on the choice of a side the footer should end with ? help: %q", footerOf(f))
	}
	s.keys("?")
	s.waitFor("Forms — where you are")
	s.keys("esc")
	s.waitFor("▍For")
	s.keys("tab")
	f = s.waitFor("▍Rationale")
	if !strings.HasSuffix(strings.TrimRight(footerOf(f), " "), "f1 help") {
		t.Errorf("in the rationale the footer should end with f1 help: %q", footerOf(f))
	}
	s.keys("?")
	s.waitFor("┃ ?")
	s.keys("f1")
	s.waitFor("Forms — where you are")
}

// The footer ends with help's key on every screen, and at 80 columns the
// queue's names the stats.
func TestTheFooterEndsWithHelpAndNamesStatsAt80Columns(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-tomas", 80, 24)
	f := s.waitFor("▸ conflict-")
	foot := footerOf(f)
	if !strings.HasSuffix(strings.TrimRight(foot, " "), "? help") || !strings.Contains(foot, "# stats") {
		t.Errorf("the queue's footer at 80 columns: %q", foot)
	}
	s.keys("enter")
	f = s.waitFor("Rules:")
	if foot := footerOf(f); !strings.HasSuffix(strings.TrimRight(foot, " "), "? help") {
		t.Errorf("the conflict's footer at 80 columns: %q", foot)
	}
	for _, l := range strings.Split(f, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("a line wider than 80 columns: %q", l)
		}
	}
}
