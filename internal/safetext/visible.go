package safetext

import (
	"strings"
	"unicode/utf8"
)

// isHidden reports whether r changes or hides how nearby text is displayed
// while taking up no visible room itself. Such runes are shown as a marker.
//
// Zero-width joiner and non-joiner (U+200C, U+200D) and variation selectors
// are deliberately absent: emoji and many scripts need them.
func isHidden(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F, // bidi marks
		0x202A <= r && r <= 0x202E, // bidi embeddings and overrides
		0x2066 <= r && r <= 0x2069: // bidi isolates
		return true
	case r == 0x180E, // Mongolian vowel separator
		r == 0x200B,                  // zero-width space
		0x2060 <= r && r <= 0x2064,   // word joiner, invisible operators
		0x206A <= r && r <= 0x206F,   // deprecated format characters
		r == 0xFEFF,                  // zero-width no-break space (BOM)
		0xFFF9 <= r && r <= 0xFFFB,   // interlinear annotation
		0xE0000 <= r && r <= 0xE007F: // tag characters ("ASCII smuggling")
		return true
	}
	return false
}

// passesThrough reports whether a valid non-ASCII rune can be shown as it is.
// The ranges checked first only make the common cases quick.
func passesThrough(r rune) bool {
	switch {
	case r < 0xA0: // C1 controls
		return false
	case r < 0x061C: // Latin, Greek, Cyrillic, Hebrew, most Arabic
		return true
	case 0x2070 <= r && r < 0xFEFF: // CJK, symbols and most of the BMP
		return true
	case 0x1F000 <= r && r < 0xE0000: // emoji, rare CJK
		return true
	}
	return r != 0x2028 && r != 0x2029 && !isHidden(r)
}

// controlPictures holds U+2400–U+241F, the visible stand-ins for the C0
// controls, three bytes each: control c is controlPictures[3*c : 3*c+3].
const controlPictures = "␀␁␂␃␄␅␆␇␈␉␊␋␌␍␎␏␐␑␒␓␔␕␖␗␘␙␚␛␜␝␞␟"

// maxStandIn is the length of the longest stand-in writeVisible writes.
const maxStandIn = len("<U+10FFFF>")

// writeVisible writes what the reader sees in place of r, a rune that may not
// pass through as it is. Runes that needed no replacement never get here.
func writeVisible(b *strings.Builder, r rune, block bool) {
	switch {
	case r == '\n', r == 0x2028, r == 0x2029: // also "\r\n"
		if block {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	case r == '\t':
		if block {
			b.WriteString("    ")
		} else {
			b.WriteByte(' ')
		}
	case r < 0x20: // C0 controls, ESC and lone CR included
		b.WriteString(controlPictures[3*r : 3*r+3])
	case r == 0x7F:
		b.WriteString("␡")
	case r == utf8.RuneError: // an invalid byte
		b.WriteString("\uFFFD")
	default: // C1 controls, bidi controls, invisible characters
		writeMarker(b, r)
	}
}

// writeMarker writes r as <U+XXXX>, with at least four hex digits.
func writeMarker(b *strings.Builder, r rune) {
	const hex = "0123456789ABCDEF"
	var buf [maxStandIn]byte
	n := copy(buf[:], "<U+")
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		buf[n] = hex[(r>>shift)&0xF]
		n++
	}
	buf[n] = '>'
	b.Write(buf[:n+1])
}
