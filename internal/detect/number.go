package detect

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Units, each with its factor to the family's base unit.
var (
	timeUnits = map[string]float64{
		"ns": 1e-9, "nanosecond": 1e-9, "nanoseconds": 1e-9,
		"us": 1e-6, "µs": 1e-6, "μs": 1e-6, "microsecond": 1e-6, "microseconds": 1e-6,
		"ms": 1e-3, "msec": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3,
		"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
		"min": 60, "mins": 60, "minute": 60, "minutes": 60,
		"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
		"d": 86400, "day": 86400, "days": 86400,
		"wk": 604800, "week": 604800, "weeks": 604800,
		"mo": 2629800, "month": 2629800, "months": 2629800,
		"yr": 31557600, "yrs": 31557600, "year": 31557600, "years": 31557600,
	}
	// periods are the adverbs and nouns that make a quantity a rate.
	periods = map[string]float64{
		"hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800, "monthly": 2629800,
		"yearly": 31557600, "annually": 31557600, "annual": 31557600,
	}
	byteUnits = map[string]float64{
		"byte": 1, "bytes": 1, "kb": 1e3, "kib": 1 << 10, "mb": 1e6, "mib": 1 << 20,
		"gb": 1e9, "gib": 1 << 30, "tb": 1e12, "tib": 1 << 40, "pb": 1e15, "pib": 1 << 50,
	}
	scaleWords = map[string]float64{
		"k": 1e3, "thousand": 1e3, "mn": 1e6, "mm": 1e6, "million": 1e6, "millions": 1e6,
		"bn": 1e9, "billion": 1e9, "billions": 1e9, "trillion": 1e12,
	}
	currencies = map[string]string{
		"$": "usd", "usd": "usd", "dollar": "usd", "dollars": "usd", "€": "eur", "eur": "eur",
		"euro": "eur", "euros": "eur", "£": "gbp", "gbp": "gbp", "pound": "gbp", "pounds": "gbp",
	}
	// rateUnits are the request rates written as one word.
	rateUnits = map[string]bool{"rps": true, "qps": true, "tps": true, "rpm": true}

	numberWords = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
		"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
		"dozen": 12, "fourteen": 14, "sixteen": 16, "eighteen": 18,
	}
	months = map[string]int{
		"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
		"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
		"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
		"december": 12, "dec": 12,
	}
)

// parseNumber reads a word that starts with a digit: its value, the
// precision it was written with, and the letters glued to it ("40ms",
// "2k", "3x", "29th"). A word that is no number ("5xx", "2fa", "1.2.3")
// is an identifier.
func parseNumber(t *tok) {
	w := t.w
	switch {
	case isDateLiteral(w):
		d, _ := time.Parse("2006-01-02", w)
		t.kind, t.val, t.prec, t.sfx = kNum, float64(d.Unix()/86400), 0.5, uint8(len(w))
		t.mark(fDate, true)
		return
	case strings.Count(w, ":") == 1:
		h, m, ok := strings.Cut(w, ":")
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if ok && err1 == nil && err2 == nil && hh < 24 && mm < 60 && len(m) == 2 {
			t.kind, t.val, t.prec, t.sfx = kNum, float64(hh*60+mm), 0.5, uint8(len(w))
			t.mark(fClock, true)
			return
		}
	}
	i := 0
	for i < len(w) && (isDigit(w[i]) || w[i] == ',' || w[i] == '.') {
		i++
	}
	lit, suffix := strings.ReplaceAll(w[:i], ",", ""), w[i:]
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil || strings.Count(lit, ".") > 1 || !knownSuffix(suffix) {
		t.kind = kWord
		t.mark(fIdent, true)
		return
	}
	t.kind, t.val, t.prec, t.sfx = kNum, v, float32(precision(lit)), uint8(min(i, 255))
}

// knownSuffix reports whether letters glued to a number are a unit, a
// scale or an ordinal ending.
func knownSuffix(s string) bool {
	if s == "" {
		return true
	}
	_, tu := timeUnits[s]
	_, bu := byteUnits[s]
	_, sw := scaleWords[s]
	switch s {
	case "m", "b", "x", "st", "nd", "rd", "th", "pp":
		return true
	}
	return tu || bu || sw || rateUnits[s]
}

// precision is half the place of the last digit a number was written
// with: 0.05 for "4.3", 5 for "40", 0.5 for "41". Trailing zeros of a whole
// number are read as rounding.
func precision(lit string) float64 {
	if k := strings.IndexByte(lit, '.'); k >= 0 {
		return 0.5 * math.Pow(10, -float64(len(lit)-k-1))
	}
	z := 0
	for z < len(lit)-1 && lit[len(lit)-1-z] == '0' {
		z++
	}
	return 0.5 * math.Pow(10, float64(z))
}

func isDateLiteral(w string) bool {
	return len(w) == 10 && w[4] == '-' && w[7] == '-' && isDigit(w[0]) && isDigit(w[5]) && isDigit(w[8]) &&
		!hasLetter(w)
}
