package tui

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// sgrReference is what onlySGR does, as the regular expression it
// replaced said it.
var sgrReference = func() func(string) string {
	escapes := regexp.MustCompile(`\x1b(\[[0-9;:?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[P_^X][^\x1b]*(\x1b\\)?|.)`)
	return func(s string) string {
		return escapes.ReplaceAllStringFunc(s, func(seq string) string {
			if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
				return seq
			}
			return ""
		})
	}
}()

func TestOnlySGRKeepsColourAndDropsEveryOtherSequence(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                      "plain",
		"\x1b[1;38;5;203mred\x1b[0m": "\x1b[1;38;5;203mred\x1b[0m",
		"a\x1b]8;;https://x\x07link\x1b]8;;\x07b": "alinkb",
		"a\x1b]0;title\x1b\\b":                    "ab",
		"a\x1b[2Jb\x1b[?25lc":                     "abc",
		"a\x1bPq#0;2;0;0;0\x1b\\b":                "ab",
		"a\x1b_apc\x1b\\b\x1b^pm\x1b\\c":          "abc",
		"a\x1bcb":                                 "ab",
		"a\x1b[<1;2Mb":                            "a<1;2Mb",
		"end\x1b":                                 "end\x1b",
		"nl\x1b\nx":                               "nl\x1b\nx",
		"a\x1béb":                                 "ab",
		"a\x1b\x1b[31mb":                          "a[31mb",
		"a\x1b]unterminated":                      "a",
	} {
		if got := onlySGR(in); got != want {
			t.Errorf("onlySGR(%q) = %q, want %q", in, got, want)
		}
		if ref := sgrReference(in); ref != want {
			t.Errorf("the reference says %q for %q; the table is wrong", ref, in)
		}
	}
}

// The scanner agrees with the regular expression on random mixes of the
// bytes that matter.
func TestOnlySGRAgreesWithTheExpression(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"\x1b", "[", "]", "m", "0", "1", ";", ":", "?", "<", " ", "/", "@", "~", "\x07", "\\",
		"P", "_", "^", "X", "\n", "a", "é", "\xff", "\x7f", "J"}
	for range 200_000 {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := onlySGR(s), sgrReference(s); got != want {
			t.Fatalf("onlySGR(%q) = %q; the expression gives %q", s, got, want)
		}
	}
}

func FuzzOnlySGR(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\x1b]8;;u\x07x")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := onlySGR(s), sgrReference(s); got != want {
			t.Fatalf("onlySGR(%q) = %q; the expression gives %q", s, got, want)
		}
	})
}
