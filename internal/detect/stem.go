package detect

import "strings"

// stem folds a lower-case word to the form comparisons use: plurals, -ed,
// -ing, -ly and -ation endings removed and a final e dropped, so that
// "retries" meets "retry", "cached" meets "caches" and "migration" meets
// "migrate". It is a small suffix stripper, not a full stemmer: both sides
// of a comparison go through it, so what matters is that the forms of one
// word agree, not that the stem is a word.
func stem(w string) string {
	if l, ok := lemmas[w]; ok {
		return l
	}
	if len(w) <= 3 || hasDigit(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s") && len(w) > 3:
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "eed"):
	case strings.HasSuffix(w, "ed") && len(w) > 3 && hasVowel(w[:len(w)-2]):
		w = verbBase(w[:len(w)-2])
	case strings.HasSuffix(w, "ing") && len(w) > 4 && hasVowel(w[:len(w)-3]):
		w = verbBase(w[:len(w)-3])
	case strings.HasSuffix(w, "ly") && len(w) > 5:
		w = w[:len(w)-2]
	case (strings.HasSuffix(w, "tion") || strings.HasSuffix(w, "sion")) && len(w) > 6:
		w = w[:len(w)-3]
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// verbBase is what is left of a verb without -ed or -ing: the doubled
// consonant dropped ("stopp"), and the e of a short verb put back ("us"
// of "used" is "use").
func verbBase(w string) string {
	if len(w) == 2 {
		return w + "e"
	}
	return undouble(w)
}

// undouble drops the doubled consonant -ed and -ing leave ("stopp",
// "runn"), but not the ones words keep ("install", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n < 3 || w[n-1] != w[n-2] {
		return w
	}
	switch w[n-1] {
	case 'l', 's', 'z', 'a', 'e', 'i', 'o', 'u':
		return w
	}
	return w[:n-1]
}

func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}

// hash is FNV-1a over a stem: segments keep their words as sorted hashes,
// so that comparing two is a merge of two short integer lists.
func hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	if h == 0 {
		h = 1
	}
	return h
}
