package tui

import (
	"testing"

	"arbiter/demo"
	"arbiter/internal/keymap"
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
	s := start(t, svc, demo.Operator, 140, 40, func(o *Options) { o.Keys = rebound(t, map[string][]string{"decide": {"D"}}) })
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023", "D decide")
	s.keys("d", "D")
	s.waitFor("Decide conflict-008")
	s.keys("q") // never quits from a form
	s.keys("esc")
	s.waitFor("A mem-023")
}
