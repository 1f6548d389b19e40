package tui

import (
	"strings"
	"testing"
)

func TestNestingDepthCountsQuotesListsAndIndentationOutsideFences(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"plain\n", 0},
		{"> quote\n", 1},
		{">>> > deep\n", 5}, // spaces among the markers count too: they nest lists
		{"- a\n  - b\n    - c\n", 3},
		{"1. a\n   2) b\n", 2},
		{"> - > - x\n", 5},
		{">" + strings.Repeat(" ", 20) + "- x\n", 12},
		{"```\n" + strings.Repeat(" ", 80) + "code\n```\n", 0},
		{"~~~~\n>>>>>>>>>>\n~~~\n>>>>>>>>>>\n~~~~\n", 0},
		{"```go\n" + strings.Repeat(">", 50) + "\n", 0}, // an unclosed fence runs to the end
		{"    indented code\n", 2},
	} {
		if got := nestingDepth(c.text); got != c.want {
			t.Errorf("nestingDepth(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

func TestPiecesCoverTheTextAndNeverSplitAFence(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		b.WriteString("Paragraph " + strings.Repeat("word ", i%7) + "\n\n")
		if i%50 == 0 {
			b.WriteString("```\n" + strings.Repeat("code line\n", 200) + "```\n\n")
		}
		if i%30 == 0 {
			b.WriteString("- item\n" + strings.Repeat("  - nested\n", 150))
		}
	}
	text := b.String()
	ps := pieces(text, pieceLines)
	if strings.Join(ps, "") != text {
		t.Fatal("the pieces do not add up to the text")
	}
	if len(ps) < 10 {
		t.Errorf("%d pieces, want the text split", len(ps))
	}
	for i, p := range ps {
		if n := strings.Count(p, "```"); n%2 != 0 {
			t.Errorf("piece %d splits a fence:\n%s", i, p)
		}
		if lines := strings.Count(p, "\n"); lines > 2*pieceLines && !strings.Contains(p, "```") {
			t.Errorf("piece %d has %d lines", i, lines)
		}
	}
}

func TestFormattingStopsAtTheBudgetAndShowsTheRestPlain(t *testing.T) {
	// Tens of thousands of identical headings: glamour would take minutes.
	text := strings.Repeat("# x\n", 16<<10)
	out := newMarkdown().Render(text, 70, "dark")
	if !strings.Contains(out, "formatting took too long") && !strings.Contains(out, "Formatting took too long") {
		t.Skip("this machine formatted 16k headings within the budget")
	}
	plain := sgr.ReplaceAllString(out, "")
	if strings.Count(plain, "x") < 16<<10 {
		t.Errorf("the plain rest lost text: %d x's of %d", strings.Count(plain, "x"), 16<<10)
	}
}
