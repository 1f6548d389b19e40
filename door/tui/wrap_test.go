package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A wrapped line breaks at spaces, never after a hyphen inside an id: at
// every width the names and ids come out whole.
func TestWrappedLinesKeepHyphenatedIdsWhole(t *testing.T) {
	s := "Keep B conflict-011: mem-036 prevails · notifies ana-quill, ops-maya, plan-juno, sre-atlas"
	for w := len("conflict-011:"); w <= len(s); w++ { // no word is wider
		lines := wrapLines(s, w)
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: %q is wider", w, l)
			}
			if strings.HasSuffix(l, "-") {
				t.Fatalf("width %d: a line ends in a hyphen: %q", w, lines)
			}
		}
		if got := strings.Join(lines, " "); got != s {
			t.Fatalf("width %d: %q, want the words of %q", w, got, s)
		}
	}
}
