package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"arbiter/service/fieldgen"
)

// twoSteps formats content as the screen does, head first, and returns
// the head and the whole (the head when nothing was left).
func twoSteps(t *testing.T, md *markdown, content string, width, lines int) (head, whole string) {
	t.Helper()
	head, rest := md.RenderHead(content, width, "dark", lines)
	if rest == nil {
		return head, head
	}
	if got := strings.Count(head, "\n") + 1; got < lines {
		t.Errorf("the head has %d lines, want at least %d when more follows", got, lines)
	}
	return head, md.Finish(rest)
}

// checkTwoSteps checks that formatting content in two steps gives the
// text formatting it in one gives, with the same pieces, and that the
// head is where it starts.
func checkTwoSteps(t *testing.T, md *markdown, name, content string, width, lines int) {
	t.Helper()
	head, whole := twoSteps(t, md, content, width, lines)
	one := md.renderWith(content, width, "dark", lines)
	if sameColours(whole) != sameColours(one) {
		t.Errorf("%s: two steps differ from one (%d and %d bytes); first difference at byte %d",
			name, len(whole), len(one), firstDifference(sameColours(whole), sameColours(one)))
	}
	if !strings.HasPrefix(whole, head) {
		t.Errorf("%s: the whole text does not start with the head", name)
	}
}

// sameColours makes glamour's output comparable from one call to the
// next. Chroma (v2.14, formatters/tty_indexed.go findClosest) picks the
// terminal colour nearest to a style's colour by ranging over a map, so
// a colour as near to two of the 256 as the dark style's comments
// (#676767: 241 and 242) gets one or the other at random, each code
// block anew; other such ties are rarer (one, a colour of one digit more
// or less, made the texts differ by a byte on a busy machine). The
// indexed colours are what is random, so all of them read as one.
func sameColours(s string) string { return indexedColour.ReplaceAllString(s, "${1}N") }

var indexedColour = regexp.MustCompile(`(\x1b\[(?:[0-9;]*;)?[34]8;5;)[0-9]{1,3}`)

// unhurried is a markdown renderer that never runs out of time: the
// tests that compare its texts must not depend on how busy the machine is
// (under the race detector a 20 KB unit takes longer than renderBudget).
func unhurried() *markdown {
	md := newMarkdown()
	md.budget = time.Hour
	return md
}

func firstDifference(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestFormattingInTwoStepsGivesTheTextOfOne(t *testing.T) {
	md := unhurried()
	for _, size := range []int{300, 4 << 10, 20 << 10} {
		for seed := uint64(1); seed <= 3; seed++ {
			content := fieldgen.Markdown(seed, size)
			for _, lines := range []int{8, 40} {
				checkTwoSteps(t, md, fmt.Sprintf("%d bytes, seed %d, %d lines", size, seed, lines), content, 72, lines)
			}
		}
	}
	// Past maxRenderBytes: the note on what was cut comes at the very end.
	checkTwoSteps(t, md, "70 KB", fieldgen.Markdown(4, 70<<10), 72, 40)
}

func TestFormattingInTwoStepsKeepsFencesListsAndQuotesWhole(t *testing.T) {
	fence := "```go\n" + strings.Repeat("x := compute(y) // a line of code\n", 60) + "```\n\n"
	list := "- first\n  - nested item with **bold** text\n    1. deeper\n" + strings.Repeat("  - more\n", 50) + "\n"
	quote := "> A quote that runs on.\n>\n> " + strings.Repeat("It keeps going. ", 40) + "\n\n"
	para := "A paragraph with *emphasis*, `code` and a [link](https://example.com).\n\n"
	md := unhurried()
	for name, content := range map[string]string{
		"a fence first":          fence + para + list + quote + para,
		"a long list first":      list + fence + quote + para,
		"quotes and paragraphs":  strings.Repeat(quote+para, 12),
		"an unclosed fence":      para + "~~~\n" + strings.Repeat("never closed\n", 200),
		"everything, repeated":   strings.Repeat(para+fence+list+quote, 4),
		"nested too deep":        strings.Repeat(">", 20) + " deep\n\n" + strings.Repeat(para, 40),
		"one short paragraph":    para,
		"headings and a table":   strings.Repeat("## Heading\n\n"+para+"| a | b |\n|---|---|\n| 1 | 2 |\n\n", 20),
		"blank lines in a fence": "```\n" + strings.Repeat("code\n\n\n", 80) + "```\n\n" + para,
	} {
		for _, lines := range []int{1, 10, 40} {
			checkTwoSteps(t, md, fmt.Sprintf("%s, %d lines", name, lines), content, 60, lines)
		}
	}
}

func TestAUnitThatFitsItsPaneIsFormattedInOneStep(t *testing.T) {
	md := unhurried()
	content := "A short unit with **bold** text.\n\n- one\n- two\n"
	head, rest := md.RenderHead(content, 72, "dark", 40)
	if rest != nil {
		t.Fatal("a unit shorter than its pane left work for a second step")
	}
	if head != md.Render(content, 72, "dark") {
		t.Errorf("the one step differs from Render:\n%q\n%q", head, md.Render(content, 72, "dark"))
	}
}

func TestTheHeadOfALargeUnitIsASmallPartOfIt(t *testing.T) {
	md := unhurried()
	content := fieldgen.Markdown(1, 20<<10)
	head, rest := md.RenderHead(content, 72, "dark", 40)
	if rest == nil {
		t.Fatal("a 20 KB unit was formatted whole for a 40-line pane")
	}
	whole := md.Finish(rest)
	if n := strings.Count(head, "\n"); n > strings.Count(whole, "\n")/3 {
		t.Errorf("the head has %d of %d lines: the first step formatted too much", n, strings.Count(whole, "\n"))
	}
	if strings.Contains(whole, "… shown:") {
		t.Errorf("a 20 KB unit is not cut")
	}
}
