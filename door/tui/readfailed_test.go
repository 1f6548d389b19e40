package tui

import (
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// A decision key on a conflict whose first read failed says so, rather
// than waiting for a read that already answered; the reason is shown
// whole, wrapped at words.
func TestADecisionKeyOnAConflictThatCouldNotBeReadSaysSo(t *testing.T) {
	d := start(t, openService(t, demoField(t), false), demo.Operator, 80, 24)
	d.waitFor("▸ conflict-008")
	d.keys("enter")
	// The field's answer to the read, before the real one comes back.
	d.send(detailLoadedMsg{id: "conflict-008", err: model.Errorf("READ", model.CodeInternalError,
		"restore the field from a backup", "the field file is damaged: database disk image is malformed (11)")})
	d.send(keyMsg("d"))
	frame := flatText(d.frame)
	for _, want := range []string{
		"the field file is damaged: database disk image is malformed (11) (restore the field from a backup)",
		"Nothing to decide on: conflict-008 could not be read (esc goes back).",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("the screen does not say %q:\n%s", want, d.frame)
		}
	}
	for _, line := range strings.Split(ansi.Strip(d.frame), "\n") {
		if ansi.StringWidth(line) > 80 {
			t.Errorf("a line wider than the terminal, which cuts it: %q", line)
		}
	}
	if d.m.keyAfterLoad != nil {
		t.Errorf("the key waits for a read that answered already: %+v", d.m.keyAfterLoad)
	}
}
