package threeway

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"arbiter/internal/safetext"
)

// attacks is terminal attacks in one text: CSI colour and erase, OSC 52
// clipboard writes, OSC 8 hyperlinks, a title, 8-bit C1 controls, BEL,
// backspace and carriage-return overwrites, NUL, DEL, bidi overrides,
// zero-width characters, line separators, invalid UTF-8 and a tab.
const attacks = "red \x1b[31mALERT\x1b[0m clear\x1b[2J\x1b[H " +
	"clip\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 link\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\ " +
	"title\x1b]0;pwned\x07 c1\u009b31m\u009d52;c;eA==\u009c bell\x07 safe\x08\x08evil\rls nul\x00 del\x7f " +
	"invoice\u202egpj.exe \u2066admin\u2069 pay\u200bpal\ufeff sep\u2028line\u2029para bad\xff\xc3utf8 tab\tend"

// inert fails unless s holds nothing that drives a terminal or hides
// text: no C0 control but '\n', no DEL, no C1 control, no bidi control,
// no invisible character or line separator, valid UTF-8.
func inert(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s: not valid UTF-8: %q", what, s)
	}
	for i, r := range s {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r) ||
			r == 0x2028 || r == 0x2029 || r == 0x200b || r == 0xfeff {
			t.Fatalf("%s: %U at byte %d: %q", what, r, i, s[max(0, i-30):min(len(s), i+30)])
		}
	}
}

func TestHostileTextInAnyVersionComesOutInert(t *testing.T) {
	base := "# Latency\n\n- p99 is 40 ms\n| eu | 40 |\n"
	hostile := "# Latency " + attacks + "\n\n- p99 is 40 ms " + attacks + "\n| eu | " + attacks + " |\n```\n" + attacks + "\n```\n"
	for _, tc := range []struct {
		name       string
		base, a, b string
	}{
		{"in the base", hostile, base, base},
		{"in A", base, hostile, base},
		{"in B", base, base, hostile},
		{"in all three", hostile, hostile + "more\n", "- " + hostile},
		{"in A and B alike", base, hostile, hostile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// As the command line does: every text cleaned first.
			c := Compare(safetext.Block(tc.base), safetext.Block(tc.a), safetext.Block(tc.b))
			inert(t, "annotated", c.Annotated())
			text, _ := c.Suggest()
			inert(t, "suggestion", text)
			for _, r := range c.Regions {
				inert(t, "region", r.Base+r.A+r.B)
			}
			two := CompareTwo(safetext.Block(tc.a), safetext.Block(tc.b))
			inert(t, "two-way", two.Annotated())
			text, _ = two.Suggest()
			inert(t, "two-way suggestion", text)

			// The package itself keeps every byte: cleaning its output
			// afterwards is as safe, and the attack is still visible.
			raw := Compare(tc.base, tc.a, tc.b)
			checkJoins(t, raw, tc.base, tc.a, tc.b)
			out := safetext.Block(raw.Annotated())
			inert(t, "cleaned annotated", out)
			if !strings.Contains(out, "␛[31mALERT") {
				t.Fatalf("the attack is not shown: %q", out)
			}
		})
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("I like coffee", "I like coffee and tea", "I love coffee")
	f.Add(latencyBase, edit(latencyBase, "40 ms |", "52 ms |"), edit(latencyBase, "40 ms |", "39 ms |"))
	f.Add("- a\n- b\n", "- a\n- x\n- b\n", "- a\n- y\n- b\n")
	f.Add("", "x", "")
	f.Add(attacks, "\n"+attacks, attacks+"\x1b")
	f.Add("```\na\n```\n", "```\nb\n", "~~~\n")
	f.Fuzz(func(t *testing.T, base, a, b string) {
		c := Compare(base, a, b)
		checkJoins(t, c, base, a, b)
		text, n := c.Suggest()
		if (n == 0) != (c.Count(Disputed) == 0) {
			t.Fatalf("%d alternatives for %d disputed regions", n, c.Count(Disputed))
		}
		if n == 0 && c.Count(ChangedB)+c.Count(ChangedBoth)+c.Count(Unchanged) == len(c.Regions) && text != b {
			t.Fatalf("A changed nothing, yet the suggestion %q is not B %q", text, b)
		}
		if Unsettled(text) < n {
			t.Fatalf("Unsettled counts %d of %d", Unsettled(text), n)
		}
		two := CompareTwo(a, b)
		checkJoins(t, two, "", a, b)
		if text, n := two.Suggest(); n == 0 && text != a {
			t.Fatalf("no alternatives, yet %q is not %q", text, a)
		}
	})
}
