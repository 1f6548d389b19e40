package safetext

import "testing"

func TestBlockShowsBELAsPicture(t *testing.T) {
	checkAll(t, Block, []example{{"bell", "ding\x07dong", "ding␇dong"}})
}

func TestBlockShowsBackspaceInsteadOfErasing(t *testing.T) {
	checkAll(t, Block, []example{
		{"overwrite by backspace", "safe\x08\x08\x08\x08evil", "safe␈␈␈␈evil"},
	})
}

func TestBlockShowsLoneCarriageReturnInsteadOfOverwriting(t *testing.T) {
	checkAll(t, Block, []example{
		{"overwrite the line", "rm -rf /\rls -l", "rm -rf /␍ls -l"},
		{"CR at the end", "done\r", "done␍"},
		{"CR before CRLF", "a\r\r\nb", "a␍\nb"},
	})
}

func TestBlockTurnsCRLFIntoNewline(t *testing.T) {
	checkAll(t, Block, []example{
		{"windows lines", "one\r\ntwo\r\n", "one\ntwo\n"},
	})
}

func TestBlockShowsNULAsPicture(t *testing.T) {
	checkAll(t, Block, []example{{"nul", "a\x00b", "a␀b"}})
}

func TestBlockShowsOtherControlsAsPictures(t *testing.T) {
	checkAll(t, Block, []example{
		{"vertical tab and form feed", "a\vb\fc", "a␋b␌c"},
		{"shift out and in", "\x0e\x0f", "␎␏"},
		{"unit separator", "\x1f", "␟"},
		{"DEL", "a\x7fb", "a␡b"},
	})
}

func TestBlockExpandsTabsToFourSpaces(t *testing.T) {
	checkAll(t, Block, []example{{"tab", "a\tb\n\tc", "a    b\n    c"}})
}

func TestBlockTurnsUnicodeLineSeparatorsIntoNewlines(t *testing.T) {
	checkAll(t, Block, []example{
		{"line separator", "a\u2028b", "a\nb"},
		{"paragraph separator", "a\u2029b", "a\nb"},
	})
}

func TestBlockReplacesInvalidUTF8(t *testing.T) {
	checkAll(t, Block, []example{
		{"stray byte", "a\xffb", "a\uFFFDb"},
		{"truncated rune at the end", "caf\xc3", "caf\uFFFD"},
		{"overlong slash", "\xc0\xaf", "\uFFFD\uFFFD"},
		{"encoded surrogate", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"real replacement character kept", "\uFFFD", "\uFFFD"},
	})
}

func TestBlockFindsControlsAtEveryOffsetOfALongPlainRun(t *testing.T) {
	plain := "0123456789abcdefghijklmnopqrstuv" // longer than the 8-byte words scanned at once
	bad := []struct{ in, want string }{
		{"\x00", "␀"}, {"\x1b", "␛"}, {"\x1f", "␟"}, {"\x7f", "␡"},
		{"\u009b", "<U+009B>"}, {"\u202e", "<U+202E>"}, {"\xff", "\uFFFD"},
	}
	for _, c := range bad {
		for at := 0; at <= len(plain); at++ {
			in := plain[:at] + c.in + plain[at:]
			want := plain[:at] + c.want + plain[at:]
			if got := Block(in); got != want {
				t.Errorf("Block(%q) = %q, want %q", in, got, want)
			}
		}
	}
}
