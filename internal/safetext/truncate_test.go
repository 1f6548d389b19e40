package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateKeepsShortTextWhole(t *testing.T) {
	for _, max := range []int{5, 6, 100} {
		if got, cut := Truncate("hello", max); got != "hello" || cut {
			t.Errorf("Truncate(hello, %d) = %q, %v; want hello, false", max, got, cut)
		}
	}
}

func TestTruncateCutsAtRuneBoundary(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: keep none of it
		{"héllo", 3, "hé"},
		{"a😀b", 4, "a"}, // 😀 is four bytes
		{"a😀b", 5, "a😀"},
		{"日本", 5, "日"},
		{"\xc3\xa9\x80\x80", 2, "é"}, // invalid tail: cut at max, the rune before fits
	} {
		got, cut := Truncate(tc.in, tc.max)
		if got != tc.want || !cut {
			t.Errorf("Truncate(%q, %d) = %q, %v; want %q, true", tc.in, tc.max, got, cut, tc.want)
		}
	}
}

func TestTruncateWithNoRoomReturnsNothing(t *testing.T) {
	for _, max := range []int{0, -1} {
		if got, cut := Truncate("x", max); got != "" || !cut {
			t.Errorf("Truncate(x, %d) = %q, %v; want \"\", true", max, got, cut)
		}
	}
	if got, cut := Truncate("", 0); got != "" || cut {
		t.Errorf("Truncate(\"\", 0) = %q, %v; want \"\", false", got, cut)
	}
}

func TestTruncateOfValidTextIsValidAtEveryLimit(t *testing.T) {
	in := strings.Repeat("aé日😀\u202e\n", 3)
	for max := 0; max <= len(in)+1; max++ {
		got, cut := Truncate(in, max)
		if problem := truncateProblem(in, max, got, cut); problem != "" {
			t.Errorf("Truncate(%q, %d) = %q: %s", in, max, got, problem)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q: invalid UTF-8", in, max, got)
		}
	}
}

// truncateProblem checks what holds for any input and limit: the result is a
// prefix no longer than max (empty when max <= 0), it is shorter only when it
// cut, it gives up at most the bytes of one rune, and it splits no valid rune.
func truncateProblem(in string, max int, got string, cut bool) string {
	switch {
	case !strings.HasPrefix(in, got):
		return "not a prefix"
	case len(got) > max && len(got) > 0:
		return "longer than max"
	case cut != (len(in) > max):
		return "wrong cut flag"
	case cut && max > 0 && len(got) < max-(utf8.UTFMax-1):
		return "cut more than one rune"
	case cut && len(got) < len(in) && utf8.ValidString(in) && !utf8.RuneStart(in[len(got)]):
		return "split a rune"
	}
	return ""
}
