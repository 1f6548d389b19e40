package tui

import (
	"testing"

	"arbiter/demo"
)

func TestRebindReportsUnknownNames(t *testing.T) {
	k := DefaultKeyMap()
	unknown := k.Rebind(map[string][]string{"Decide": {"D"}, "no_such_binding": {"x"}})
	if len(unknown) != 1 || unknown[0] != "no_such_binding" {
		t.Errorf("unknown = %v", unknown)
	}
	if got := k.Decide.Keys(); len(got) != 1 || got[0] != "D" {
		t.Errorf("decide keys = %v", got)
	}
}

func TestReboundKeyOpensTheDecisionForm(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40, func(o *Options) { o.Keys = map[string][]string{"decide": {"D"}} })
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	s.waitFor("A mem-023", "D decide")
	s.keys("d", "D")
	s.waitFor("Decide conflict-008")
	s.keys("q") // never quits from a form
	s.keys("esc")
	s.waitFor("A mem-023")
}
