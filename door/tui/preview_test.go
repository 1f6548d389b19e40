package tui

import (
	"strings"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// frameNow is the frame drawn right after the last message, without
// handling any message that came back since: what a key press shows at
// once.
func (d *driver) frameNow() string { return ansi.Strip(d.frame) }

// On a wide terminal the queue shows, beside it, the conflict under the
// cursor: what is disputed, its route and deadline, both sides' authors,
// confidence and first lines. It follows the cursor, and a row read once
// shows at once when the cursor comes back to it.
func TestThePreviewFollowsTheCursorAndShowsWhatItKeptAtOnce(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 160, 48)
	f := s.waitFor("▸ conflict-008", "A: mem-023 by ana-quill", "B: mem-026 by sre-atlas")
	for _, l := range strings.Split(f, "\n") {
		if w := ansi.StringWidth(l); w > 160 {
			t.Errorf("a line of %d cells at 160 columns: %q", w, l)
		}
	}
	for _, want := range []string{"The 0.004 % drift that clears the Phase 0 gate", "Routed to you (ops-maya) · deadline",
		"Rules split: last write → B", "Shadow reconciliation: the Phase 0 gate is met", "0.88"} {
		if !strings.Contains(f, want) {
			t.Errorf("the preview lacks %q:\n%s", want, f)
		}
	}
	s.keys("j")
	f = s.frameNow()
	if !strings.Contains(f, "▸ conflict-011") || !strings.Contains(f, "Merchant dashboard first") {
		t.Errorf("the preview does not show the row's own fields at once:\n%s", f)
	}
	s.waitFor("A: mem-035", "Routed to you (ops-maya)")
	// Then the rows beside it are read, one at a time.
	s.until(testwait.Deadline, "the rows beside the cursor read", func(string) bool { return s.m.preview.loading == "" })
	s.send(keyMsg("k"))
	if f := s.frameNow(); !strings.Contains(f, "A: mem-023 by ana-quill") || !strings.Contains(f, "Shadow reconciliation") {
		t.Errorf("a row read before is not shown whole at once:\n%s", f)
	}

	// The key hides it and shows it again; the queue takes the room.
	s.press(s.k.PreviewPane)
	f = s.waitGone("A: mem-023")
	if !strings.Contains(f, "AGENTS") {
		t.Errorf("without the preview the queue should have the whole width:\n%s", f)
	}
	s.press(s.k.PreviewPane)
	s.waitFor("A: mem-023")
}

// Under 140 columns the preview does not show, and its key says why and
// what to do instead.
func TestThePreviewKeySaysWhyOnANarrowTerminal(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 80, 24)
	f := s.waitFor("▸ conflict-008")
	if strings.Contains(f, "╮") || strings.Contains(footerOf(f), "preview") {
		t.Errorf("an 80-column queue shows or offers the preview:\n%s", f)
	}
	s.press(s.k.PreviewPane)
	s.waitForWrapped("The preview shows beside the queue on a terminal of 140 columns or more; this one has 80. enter opens the conflict.")
}

// A unit's table shows whole in the preview, as in the conflict.
func TestThePreviewShowsATableWhole(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, "lead-priya", 160, 48)
	s.waitFor("▸ conflict-")
	s.keys("/")
	s.typeText("conflict-014")
	f := s.waitFor("B: mem-047", "After a week of Keel-only writes")
	for _, want := range []string{"$7.3k", "$31.4k", "$13.4k", "Total"} {
		if !strings.Contains(f, want) {
			t.Errorf("the preview's table lacks %q:\n%s", want, f)
		}
	}
}
