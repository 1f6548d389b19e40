package serve

import (
	"testing"

	"arbiter/internal/keymap"

	"charm.land/bubbles/v2/key"
)

// The key a stop sends a screen is the one its force_quit binding
// matches, default or rebound.
func TestTheStopKeyMatchesForceQuit(t *testing.T) {
	rebound, err := keymap.New(map[string][]string{"force_quit": {"ctrl+q"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]keymap.Map{"default": keymap.Default(), "rebound": rebound} {
		msg, ok := keyPress(m.ForceQuit.Keys())
		if !ok || !key.Matches(msg, m.ForceQuit) {
			t.Errorf("%s: %v (%q) does not match force_quit %v", name, ok, msg.String(), m.ForceQuit.Keys())
		}
	}
}
