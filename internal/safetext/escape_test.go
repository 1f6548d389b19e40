package safetext

import "testing"

func TestBlockShowsCSIColourInert(t *testing.T) {
	checkAll(t, Block, []example{
		{"red text", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"256 colours", "\x1b[38;5;196mX", "␛[38;5;196mX"},
		{"hidden text attribute", "ok\x1b[8msecret", "ok␛[8msecret"},
	})
}

func TestBlockShowsCursorMovementInert(t *testing.T) {
	checkAll(t, Block, []example{
		{"clear screen and home", "\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"absolute position", "\x1b[10;5Hx", "␛[10;5Hx"},
		{"up one line and erase it", "approved\n\x1b[1A\x1b[2Krejected", "approved\n␛[1A␛[2Krejected"},
		{"private mode: alternate screen", "\x1b[?1049h", "␛[?1049h"},
	})
}

func TestBlockDefusesOSC8Hyperlink(t *testing.T) {
	checkAll(t, Block, []example{
		{"link terminated by ST",
			"\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\",
			"␛]8;;https://evil.example␛\\docs␛]8;;␛\\"},
		{"link terminated by BEL",
			"\x1b]8;;https://evil.example\x07docs\x1b]8;;\x07",
			"␛]8;;https://evil.example␇docs␛]8;;␇"},
	})
}

func TestBlockDefusesOSC52ClipboardWrite(t *testing.T) {
	checkAll(t, Block, []example{
		{"clipboard write by BEL", "\x1b]52;c;Y3VybCBldmlsLnNo\x07", "␛]52;c;Y3VybCBldmlsLnNo␇"},
		{"clipboard write by ST", "\x1b]52;c;Y3VybCBldmlsLnNo\x1b\\", "␛]52;c;Y3VybCBldmlsLnNo␛\\"},
		{"clipboard query", "\x1b]52;c;?\x07", "␛]52;c;?␇"},
	})
}

func TestBlockShowsOSCTerminatedByBELOrSTInert(t *testing.T) {
	checkAll(t, Block, []example{
		{"window title by BEL", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"window title by ST", "\x1b]2;pwned\x1b\\", "␛]2;pwned␛\\"},
		{"palette change", "\x1b]4;1;rgb:ff/ff/ff\x07", "␛]4;1;rgb:ff/ff/ff␇"},
	})
}

func TestBlockShowsStringSequencesInert(t *testing.T) {
	checkAll(t, Block, []example{
		{"DCS", "\x1bP+q544e\x1b\\", "␛P+q544e␛\\"},
		{"APC (kitty graphics)", "\x1b_Gf=100;AAAA\x1b\\", "␛_Gf=100;AAAA␛\\"},
		{"PM", "\x1b^private\x1b\\", "␛^private␛\\"},
		{"SOS", "\x1bXstring\x1b\\", "␛Xstring␛\\"},
		{"control inside a string", "\x1bPa\x08b\nc\x1b\\", "␛Pa␈b\nc␛\\"},
	})
}

func TestBlockShowsTwoByteEscapesInert(t *testing.T) {
	checkAll(t, Block, []example{
		{"full reset", "\x1bc", "␛c"},
		{"save and restore cursor", "\x1b7x\x1b8", "␛7x␛8"},
		{"reverse index", "\x1bM", "␛M"},
		{"keypad mode", "\x1b=", "␛="},
		{"charset switch", "\x1b(0lqk", "␛(0lqk"},
	})
}

func TestBlockShowsUnterminatedSequencesAtEndOfInput(t *testing.T) {
	checkAll(t, Block, []example{
		{"bare ESC", "text\x1b", "text␛"},
		{"CSI without final byte", "text\x1b[31", "text␛[31"},
		{"CSI introducer only", "text\x1b[", "text␛["},
		{"OSC without terminator", "text\x1b]52;c;abc", "text␛]52;c;abc"},
		{"DCS without terminator", "text\x1bP", "text␛P"},
		{"ST split: ESC at the end", "\x1b]0;t\x1b", "␛]0;t␛"},
	})
}

func TestBlockMarksEightBitC1Controls(t *testing.T) {
	checkAll(t, Block, []example{
		{"CSI", "\u009b31mred", "<U+009B>31mred"},
		{"OSC to ST", "\u009d52;c;eA==\u009c", "<U+009D>52;c;eA==<U+009C>"},
		{"DCS", "\u0090q\u009c", "<U+0090>q<U+009C>"},
		{"APC, PM, SOS", "\u009f\u009e\u0098", "<U+009F><U+009E><U+0098>"},
		{"next line", "a\u0085b", "a<U+0085>b"},
		{"first C1", "\u0080", "<U+0080>"},
	})
}

func TestBlockReplacesRawC1BytesAsInvalidUTF8(t *testing.T) {
	checkAll(t, Block, []example{
		{"8-bit CSI byte", "\x9b31m", "\uFFFD31m"},
		{"8-bit OSC byte", "\x9d0;t\x07", "\uFFFD0;t␇"},
	})
}
