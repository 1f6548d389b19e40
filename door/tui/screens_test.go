package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"arbiter/internal/keymap"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// Every screen listed in screens() keeps to the same rules: its body is
// no wider than the room it is given, and its footer names only bindings
// of the table, enabled and with keys.
func TestEveryScreenFitsItsWidthAndNamesOnlyTheTablesBindings(t *testing.T) {
	svc := openService(t, demoField(t), false)
	const w = 100
	s := start(t, svc, demo.Operator, w, 30)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023", "Rules:")
	m := s.m
	c := m.conflict.openConflict
	c.decide = newDecideForm(c, m.me, true, m.keys)
	c.vote = newVoteForm(c, m.me, true)
	m.layout()
	for _, sc := range screens() {
		name := fmt.Sprintf("%T", sc)
		body := sc.view(m, w, m.bodyHeight())
		if strings.TrimSpace(ansi.Strip(body)) == "" {
			t.Errorf("%s draws nothing", name)
		}
		for i, line := range strings.Split(body, "\n") {
			if n := ansi.StringWidth(line); n > w {
				t.Errorf("%s: line %d is %d cells wide, more than %d: %q", name, i, n, w, ansi.Strip(line))
			}
		}
		help := sc.help(m)
		if len(help) == 0 {
			t.Errorf("%s has no footer", name)
		}
		for _, b := range help {
			inTable := slices.ContainsFunc(m.keys.Entries(), func(e keymap.Entry) bool { return slices.Equal(e.Binding.Keys(), b.Keys()) })
			if !b.Enabled() || len(b.Keys()) == 0 || !inTable {
				t.Errorf("%s's footer shows %q (%s), not an enabled binding of the table", name, b.Help().Key, b.Help().Desc)
			}
		}
	}
}
