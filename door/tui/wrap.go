package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapLines wraps a styled line to w cells.
func wrapLines(s string, w int) []string {
	return strings.Split(wordWrap(s, max(10, w)), "\n")
}

// wordWrap wraps s to w cells at spaces only: ansi.Wrap also breaks after
// every hyphen, which cut ids (sre-/atlas, conflict-/011) across lines.
// Hyphens pass the wrap as non-breaking ones, of the same width.
func wordWrap(s string, w int) string {
	const nbHyphen = "\u2011"
	if !strings.Contains(s, "-") {
		return ansi.Wrap(s, w, " ")
	}
	held := strings.ReplaceAll(s, nbHyphen, "\x00")
	out := ansi.Wrap(strings.ReplaceAll(held, "-", nbHyphen), w, " ")
	return strings.ReplaceAll(strings.ReplaceAll(out, nbHyphen, "-"), "\x00", nbHyphen)
}
