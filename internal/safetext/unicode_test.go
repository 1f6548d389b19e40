package safetext

import "testing"

func TestBlockShowsEveryBidiControlVisibly(t *testing.T) {
	checkAll(t, Block, []example{
		{"arabic letter mark", "\u061c", "<U+061C>"},
		{"LRM and RLM", "\u200e\u200f", "<U+200E><U+200F>"},
		{"embeddings and overrides", "\u202a\u202b\u202c\u202d\u202e", "<U+202A><U+202B><U+202C><U+202D><U+202E>"},
		{"isolates", "\u2066\u2067\u2068\u2069", "<U+2066><U+2067><U+2068><U+2069>"},
		{"trojan source", "if access != \"user\u202e \u2066// admin\u2069 \u2066\" {",
			"if access != \"user<U+202E> <U+2066>// admin<U+2069> <U+2066>\" {"},
	})
}

func TestBlockShowsZeroWidthCharactersVisibly(t *testing.T) {
	checkAll(t, Block, []example{
		{"zero-width space", "pay\u200bpal", "pay<U+200B>pal"},
		{"byte order mark", "\ufeffhello", "<U+FEFF>hello"},
		{"word joiner", "a\u2060b", "a<U+2060>b"},
		{"tag characters smuggle text", "ok\U000E0041\U000E0042", "ok<U+E0041><U+E0042>"},
	})
}

func TestBlockPassesMarkdownThroughUntouched(t *testing.T) {
	md := "# Decision\n\n" +
		"- **merge** unit `u-42` into `u-17`\n" +
		"- see [the spec](https://example.com/spec#l10)\n\n" +
		"```go\nfunc main() { fmt.Println(\"hi\") }\n```\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted ~~struck~~ _em_ <tag> & \\escaped\n"
	checkAll(t, Block, []example{{"markdown", md, md}})
}

func TestBlockPassesUnicodeThroughUntouched(t *testing.T) {
	checkAll(t, Block, []example{
		{"CJK", "日本語のテキストと中文和한국어", "日本語のテキストと中文和한국어"},
		{"emoji", "ok 😀 👍🏽 🇫🇷", "ok 😀 👍🏽 🇫🇷"},
		{"emoji joined by ZWJ", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},
		{"emoji variation selector", "❤\ufe0f", "❤\ufe0f"},
		{"accents", "café naïve Ñandú Ελληνικά Ωμέγα", "café naïve Ñandú Ελληνικά Ωμέγα"},
		{"combining accent", "e\u0301", "e\u0301"},
		{"right-to-left scripts", "שלום مرحبا", "שלום مرحبا"},
		{"no-break space and symbols", "10\u00a0€ ± ½ — “quoted”", "10\u00a0€ ± ½ — “quoted”"},
	})
}
