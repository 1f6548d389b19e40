package safetext

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The invariant every output of Line and Block must satisfy, whatever the
// input:
//
//   - it is valid UTF-8;
//   - it holds no rune below U+0020 except '\n' (and that only from Block),
//     no DEL, no C1 control (U+0080–U+009F), no bidi control, no U+2028 or
//     U+2029, no zero-width space, word joiner, BOM or tag character;
//   - sanitizing it again returns it unchanged;
//   - printable ASCII input (plus '\n' for Block) comes back identical;
//   - it equals what a naive rune-by-rune loop produces, so the word-at-a-time
//     scanning and buffer growth change nothing but speed.

var fuzzSeeds = []string{
	"",
	"plain text\nsecond line",
	"\x1b[31mred\x1b[0m\x1b[2J\x1b[H",
	"\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\",
	"\x1b]52;c;Y3VybCBldmlsLnNo\x07",
	"\x1b]0;title\x1b\\",
	"\x1bP+q544e\x1b\\\x1b_Gf=100;AAAA\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\",
	"\x1bc\x1b7\x1b8",
	"text\x1b", "text\x1b[31", "text\x1b]52;c;abc",
	"\u009b31m\u009d0;t\u009c\u0090q\u009c\u0085",
	"\x9b31m\x9d",
	"ding\x07", "safe\x08\x08evil", "rm -rf /\rls", "a\r\nb\r\r\n", "a\x00b", "\v\f\x7f",
	"a\tb", "a\u2028b\u2029c",
	"\xff\xc3\xc0\xaf\xed\xa0\x80",
	"invoice\u202egpj.exe \u2066\u2069\u200e\u200f\u061c",
	"pay\u200bpal\ufeff\u2060\U000E0041",
	"日本語 😀 👨\u200d👩\u200d👧 ❤\ufe0f café e\u0301",
	"␛[31m <U+202E> ␍ ␀",
	"0123456789\x7fabcdefgh\x00ijklmnop\u009bqrstuvwx\u202eyz0123456\n\t89",
}

func FuzzBlock(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkInvariant(t, Block, in, true)
	})
}

func FuzzLine(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkInvariant(t, Line, in, false)
	})
}

func checkInvariant(t *testing.T, sanitize func(string) string, in string, block bool) {
	t.Helper()
	out := sanitize(in)
	if problem := unsafeRune(out, block); problem != "" {
		t.Fatalf("output %q of input %q: %s", out, in, problem)
	}
	if again := sanitize(out); again != out {
		t.Fatalf("not idempotent: %q became %q, then %q", in, out, again)
	}
	if isPrintableASCII(in, block) && out != in {
		t.Fatalf("printable ASCII %q changed into %q", in, out)
	}
	if naive := naiveSanitize(in, block); out != naive {
		t.Fatalf("input %q: got %q, the naive loop gives %q", in, out, naive)
	}
}

// naiveSanitize is the obvious rune-at-a-time version of sanitize.
func naiveSanitize(s string, block bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
			writeVisible(&b, '\n', block)
			size = 2
		case r == '\n' && block, 0x20 <= r && r < 0x7F:
			b.WriteRune(r)
		case r >= utf8.RuneSelf && size > 1 && passesThrough(r):
			b.WriteRune(r)
		default:
			writeVisible(&b, r, block)
		}
		i += size
	}
	return b.String()
}

// unsafeRune describes the first thing in out that breaks the invariant, or
// returns "". It lists the forbidden runes itself rather than asking the code
// under test, so that the two can disagree.
func unsafeRune(out string, block bool) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	for _, r := range out {
		switch {
		case r == '\n' && block:
		case r < 0x20, r == 0x7F, 0x80 <= r && r <= 0x9F:
			return fmt.Sprintf("control %U", r)
		case unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("bidi control %U", r)
		case r == 0x2028, r == 0x2029:
			return fmt.Sprintf("line separator %U", r)
		case r == 0x200B, r == 0xFEFF, r == 0x2060, 0xE0000 <= r && r <= 0xE007F:
			return fmt.Sprintf("invisible %U", r)
		}
	}
	return ""
}

func isPrintableASCII(s string, block bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7F) && !(c == '\n' && block) {
			return false
		}
	}
	return true
}

func FuzzTruncate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, in string, max int) {
		got, cut := Truncate(in, max)
		if problem := truncateProblem(in, max, got, cut); problem != "" {
			t.Fatalf("Truncate(%q, %d) = %q, %v: %s", in, max, got, cut, problem)
		}
		if utf8.ValidString(in) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: split valid UTF-8", in, max, got)
		}
	})
}
