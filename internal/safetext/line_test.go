package safetext

import "testing"

func TestLineTurnsLineBreaksAndTabsIntoSpaces(t *testing.T) {
	checkAll(t, Line, []example{
		{"newline", "a\nb", "a b"},
		{"CRLF", "a\r\nb", "a b"},
		{"tab", "a\tb", "a b"},
		{"line separator", "a\u2028b", "a b"},
		{"paragraph separator", "a\u2029b", "a b"},
	})
}

func TestLineShowsLoneCarriageReturn(t *testing.T) {
	checkAll(t, Line, []example{{"overwrite", "agent-1\ragent-2", "agent-1␍agent-2"}})
}

func TestLineShowsEscapeSequencesInert(t *testing.T) {
	checkAll(t, Line, []example{
		{"clear screen in an id", "agent-\x1b[2J7", "agent-␛[2J7"},
		{"hyperlink in a role", "\x1b]8;;https://x.example\x07lead\x1b]8;;\x07", "␛]8;;https://x.example␇lead␛]8;;␇"},
		{"C1 CSI", "\u009b2J", "<U+009B>2J"},
	})
}

func TestLineShowsBidiOverrideVisibly(t *testing.T) {
	checkAll(t, Line, []example{
		{"reversed extension", "invoice\u202egpj.exe", "invoice<U+202E>gpj.exe"},
		{"isolate", "\u2067admin\u2069", "<U+2067>admin<U+2069>"},
	})
}

func TestLinePassesPrintableTextThroughUntouched(t *testing.T) {
	checkAll(t, Line, []example{
		{"agent id", "agent-7 (reviewer) #3", "agent-7 (reviewer) #3"},
		{"unicode description", "résumé 日本 😀", "résumé 日本 😀"},
	})
}
