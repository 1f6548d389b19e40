package safetext

import "unicode/utf8"

// Truncate returns the longest prefix of s that is at most maxBytes long and
// does not split a UTF-8 encoded rune, and whether anything was cut.
// It does not sanitize: pass the result through Line or Block before showing
// it (sanitizing first and truncating after is equally safe).
func Truncate(s string, maxBytes int) (string, bool) {
	if len(s) <= maxBytes {
		return s, false
	}
	if maxBytes <= 0 {
		return "", true
	}
	// Find the start of the rune holding s[maxBytes], the first byte cut
	// off. A rune spans at most utf8.UTFMax bytes, so look back no further.
	start := maxBytes
	for start > 0 && maxBytes-start < utf8.UTFMax-1 && !utf8.RuneStart(s[start]) {
		start--
	}
	if _, size := utf8.DecodeRuneInString(s[start:]); start+size > maxBytes {
		return s[:start], true // that rune straddles the cut: drop it whole
	}
	return s[:maxBytes], true
}
