package safetext

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Line makes field text safe for a single-line context such as a table cell:
// an agent id, a role, a one-line description. Line breaks and tabs become
// one space each; everything else follows the package rules.
func Line(s string) string { return sanitize(s, false) }

// Block makes field text safe for a multi-line context such as unit content
// or a rationale. It keeps '\n', turns "\r\n" into '\n' and a tab into four
// spaces; everything else follows the package rules.
func Block(s string) string { return sanitize(s, true) }

// sanitize copies s in one pass, replacing every rune that may not reach a
// terminal with its visible stand-in. Runs of runes that pass through are
// copied as slices of s, not rune by rune, and nothing is allocated until the
// first replacement: clean input, such as printable ASCII (plus '\n' in a
// block) or ordinary Unicode prose, is returned as it is.
func sanitize(s string, block bool) string {
	var b strings.Builder
	done := 0 // s[:done] has been written to b
	for {
		i, r, size := nextToReplace(s, done, block)
		if i == len(s) {
			break
		}
		if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			r, size = '\n', 2
		}
		if b.Cap()-b.Len() < len(s)-done+maxStandIn {
			grow(&b, len(s), len(s)-done)
		}
		b.WriteString(s[done:i]) // the clean run before s[i]
		writeVisible(&b, r, block)
		done = i + size
	}
	if done == 0 { // nothing needed replacing
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// nextToReplace finds the first rune at or after i that may not pass through
// as it is. It returns its index, the rune (utf8.RuneError for an invalid
// byte) and its size, or len(s) if there is none. Printable ASCII (and '\n'
// in a block) is tested eight bytes at a time.
func nextToReplace(s string, i int, block bool) (int, rune, int) {
	for i < len(s) {
		if i+8 <= len(s) {
			bad := unprintableASCII8(s[i : i+8])
			if bad == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(bad) / 8
		}
		c := s[i]
		switch {
		case 0x20 <= c && c < 0x7F, c == '\n' && block:
			i++
		case c < utf8.RuneSelf:
			return i, rune(c), 1
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if size == 1 || !passesThrough(r) { // invalid, or needs a stand-in
				return i, r, size
			}
			i += size
		}
	}
	return i, 0, 0
}

// grow makes room in b for the unwritten rest of the input, rest bytes,
// plus the longest stand-in, so that clean text after the last replacement
// never reallocates. The first call leaves a quarter of the input as slack,
// enough for tab-indented code or a coloured log; later calls at least
// double b, so even input that expands everywhere is copied only a constant
// number of times.
func grow(b *strings.Builder, inputLen, rest int) {
	need := rest + maxStandIn
	if b.Cap() == 0 {
		need += inputLen / 4
	}
	b.Grow(need) // a new buffer of 2*b.Cap() + need
}

// unprintableASCII8 reads w's 8 bytes as one little-endian word and returns
// a mask whose lowest set bit is the high bit of the first byte outside
// 0x20–0x7E; it is 0 if all of them are printable ASCII.
func unprintableASCII8(w string) uint64 {
	const high = 0x8080808080808080
	_ = w[7] // one bounds check instead of eight
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	// Three marks per byte b: b >= 0x80 (its own high bit); b < 0x20 (b+0x60
	// leaves the high bit clear); b == 0x7F (b+0x01 sets it). Bytes below
	// 0x80 never carry into the next byte; larger ones may, but only into
	// later bytes, so the lowest mark still falls on the first bad byte.
	return x&high | ^(x+0x6060606060606060)&high | (x+0x0101010101010101)&high
}
