package tui

import (
	"strings"
	"testing"

	"arbiter/internal/keymap"
	"arbiter/service/demo"
	"arbiter/service/fieldgen"

	"github.com/charmbracelet/x/ansi"
)

// rebound is the default bindings with overrides applied.
func rebound(t testing.TB, overrides map[string][]string) keymap.Map {
	t.Helper()
	k, err := keymap.New(overrides)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestReboundKeyOpensTheDecisionForm(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40, func(o *Options) { o.Keys = rebound(t, map[string][]string{"decide": {"E"}}) })
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023", "E decide")
	s.keys("d", "E")
	s.waitFor("Decide conflict-008")
	s.keys("q") // never quits from a form
	s.keys("esc")
	s.waitFor("A mem-023")
}

func TestNotesOnUnformattedTextNameTheRawBindingsKey(t *testing.T) {
	svc := openService(t, demoField(t), false)
	m := New(svc, Options{Keys: rebound(t, map[string][]string{"raw": {"Z"}})})
	deep := strings.Repeat(">", 20) + " deep\n\nA paragraph.\n"
	out := ansi.Strip(m.md.Render(deep, 200, "dark"))
	if !strings.Contains(out, "Press Z for the raw text.") || strings.Contains(out, "Press r ") {
		t.Errorf("the note should name raw's new key R:\n%s", out)
	}
	long := ansi.Strip(m.md.Render(fieldgen.Markdown(4, 70<<10), 200, "dark"))
	if !strings.Contains(long, "Press Z for the raw text.") {
		t.Errorf("the note on a cut unit should name raw's new key R:\n%s", long[max(0, len(long)-300):])
	}
}
