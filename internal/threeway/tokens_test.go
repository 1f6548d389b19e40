package threeway

import (
	"slices"
	"strings"
	"testing"
)

func TestTokensFollowMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"heading", "## Latency in 2025\n", []string{"## ", "Latency", " ", "in", " ", "2025", "\n"}},
		{"list item", "- p99 is 40 ms", []string{"- ", "p99", " ", "is", " ", "40", " ", "ms"}},
		{"ordered item, indented", "  12. first", []string{"  ", "12. ", "first"}},
		{"nested quote with a list", "> > - x", []string{"> ", "> ", "- ", "x"}},
		{"table row: cells apart", "| eu-west | 6,412,880 | 0.004 % |",
			[]string{"|", " ", "eu-west", " ", "|", " ", "6,412,880", " ", "|", " ", "0.004", " ", "%", " ", "|"}},
		{"sentence end is its own mark", "in the lab.", []string{"in", " ", "the", " ", "lab", "."}},
		{"emphasis and code", "**90 ms** `x`", []string{"*", "*", "90", " ", "ms", "*", "*", " ", "`", "x", "`"}},
		{"not a list: no space", "-5 degrees", []string{"-", "5", " ", "degrees"}},
		{"hash without space is text", "#hashtag", []string{"#", "hashtag"}},
		{"control characters stand alone", "a\x1b[2Jb", []string{"a", "\x1b", "[", "2Jb"}},
		{"invalid UTF-8 stands alone", "a\xffb", []string{"a", "\xff", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cut(tc.text).toks; !slices.Equal(got, tc.want) {
				t.Fatalf("tokens %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCodeFencesAreTokensAndTheirLinesAreCode(t *testing.T) {
	text := "- item\n```go info\n- not a list\n# not a heading\n```\n# heading\n"
	got := cut(text)
	want := []string{"- ", "item", "\n", "```go info", "\n", "-", " ", "not", " ", "a", " ", "list", "\n",
		"#", " ", "not", " ", "a", " ", "heading", "\n", "```", "\n", "# ", "heading", "\n"}
	if !slices.Equal(got.toks, want) {
		t.Fatalf("tokens %q\nwant   %q", got.toks, want)
	}
	if len(got.lines) != 6 || got.lineTok[1] != 3 || got.lineTok[6] != len(want) {
		t.Fatalf("lines %q, line starts %v", got.lines, got.lineTok)
	}
	// A longer fence is not closed by a shorter one.
	inner := cut("````\n```\nstill code\n````\n# h\n")
	if !slices.Contains(inner.toks, "# ") || slices.Contains(inner.toks, "still code") {
		t.Fatalf("tokens %q", inner.toks)
	}
}

func TestCutLosesNothing(t *testing.T) {
	for _, s := range []string{"", "\n", "no newline", "a\r\nb\r\n", latencyBase, "\t- tab\n", "x\n\n\n", attacks} {
		c := cut(s)
		if strings.Join(c.toks, "") != s || strings.Join(c.lines, "") != s {
			t.Errorf("cut(%q) does not join back", s)
		}
	}
}
