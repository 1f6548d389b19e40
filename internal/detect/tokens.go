package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind is what a token is to the signals.
type kind uint8

const (
	kWord kind = iota // a content word: it says what a claim is about
	kStop             // a function word
	kNeg              // a negator
	kNum              // a number; its value in val
	kSym              // a symbol: $ % € ~ < > / …
)

// tok is one read token of a unit's content.
type tok struct {
	start, end int32 // bytes of the content
	w          string
	stem       string  // for kWord: the compared form
	val        float64 // for kNum: its value
	h          uint32  // hash of stem
	prec       float32 // for kNum: half the place of the last digit written
	kind       kind
	before     brk
	pole       pole  // a side of a pair of opposites (group 0: none)
	sfx        uint8 // for kNum: where the letters glued to it start in w ("ms" of "40ms")
	flags      flag
	lx         lexClass // the word lists it is in
}

// flag is what else a token is.
type flag uint16

const (
	fTemporal flag = 1 << iota // a negator saying the claim changed ("no longer")
	fIdent                     // a word with digits: db-eu-2, p99, v3, sec-412
	fCaps                      // written with a capital letter inside a sentence
	fUpper                     // its first letter is a capital, wherever it stands
	fUpperEnd                  // its last letter is a capital ("300M", "$4B")
	fQuestion                  // the sentence before it ended with a question mark
	fColon                     // a colon stands before it
	fDate                      // a yyyy-mm-dd date: val is days
	fClock                     // a time of day (14:02): val is minutes
)

func (t *tok) is(f flag) bool { return t.flags&f != 0 }

func (t *tok) mark(f flag, on bool) {
	if on {
		t.flags |= f
	} else {
		t.flags &^= f
	}
}

// suffix is the letters glued to a number.
func (t *tok) suffix() string {
	if t.kind != kNum || int(t.sfx) >= len(t.w) {
		return ""
	}
	return t.w[t.sfx:]
}

// read turns content into tokens.
func read(content string) []tok {
	sc := scan(content)
	defer func() {
		sc.s = "" // the pool keeps the scanner, not the unit's content
		rawBuffers.Put(sc)
	}()
	rs := sc.out
	toks := make([]tok, 0, len(rs)+len(rs)/8+1)
	sentenceStart := true
	for _, r := range rs {
		if r.before >= brkSentence {
			sentenceStart = true
		}
		text := content[r.start:r.end]
		t := tok{start: r.start, end: r.end, before: r.before}
		t.mark(fQuestion, r.question)
		t.mark(fColon, r.colon)
		if r.sym != 0 {
			t.kind, t.w = kSym, string(r.sym)
			toks = append(toks, t)
			continue
		}
		t.mark(fUpper, startsUpper(text))
		t.mark(fCaps, !sentenceStart && t.is(fUpper))
		t.mark(fUpperEnd, text[len(text)-1] >= 'A' && text[len(text)-1] <= 'Z')
		sentenceStart = false
		folded := fold(text)
		if folded == "us" && text == "US" {
			folded = "usa"
		}
		toks = appendWord(toks, t, folded)
	}
	for i := range toks {
		if toks[i].kind != kSym {
			toks[i].lx = lexicon[toks[i].w]
		}
	}
	toks = joinPhrases(toks)
	for i := range toks {
		classify(toks, i)
	}
	return toks
}

// appendWord appends the tokens of one scanned word: a contraction gives
// its verb and a negator, a compound its parts, a number its value.
func appendWord(toks []tok, t tok, w string) []tok {
	if strings.IndexByte(w, 0xe2) >= 0 { // the first byte of ’
		w = strings.ReplaceAll(w, "’", "'")
	}
	if k := strings.IndexByte(w, '\''); k > 0 {
		base, rest := w[:k], w[k+1:]
		if rest == "t" && strings.HasSuffix(base, "n") {
			switch base {
			case "can":
			case "won":
				base = "will"
			default:
				base = strings.TrimSuffix(base, "n")
			}
			t.w = base
			neg := t
			neg.w, neg.before = "not", brkNone
			return append(toks, t, neg)
		}
		w = base
	}
	if strings.IndexByte(w, '-') > 0 && !isDateLiteral(w) {
		return appendCompound(toks, t, w)
	}
	t.w = w
	if isDigit(w[0]) {
		parseNumber(&t)
	}
	return append(toks, t)
}

// appendCompound splits a hyphenated word: "400-hour" is a number and its
// unit, "30-50" a range, "non-blocking" one word, "db-eu-2" an identifier,
// "open-source" two words.
func appendCompound(toks []tok, t tok, w string) []tok {
	parts := strings.Split(w, "-")
	numeric := func(p string) bool { return p != "" && isDigit(p[0]) && !hasLetter(p) }
	switch {
	case len(parts) == 2 && numeric(parts[0]) && numeric(parts[1]):
		a, b := t, t
		a.w, b.w = parts[0], parts[1]
		a.end = t.start + int32(len(parts[0]))
		b.start, b.before = a.end+1, brkNone
		parseNumber(&a)
		parseNumber(&b)
		dash := tok{start: a.end, end: b.start, kind: kSym, w: "–"}
		return append(toks, a, dash, b)
	case numeric(parts[0]) && !hasDigit(strings.Join(parts[1:], "")):
		n := t
		n.w, n.end = parts[0], t.start+int32(len(parts[0]))
		parseNumber(&n)
		toks = append(toks, n)
		return appendParts(toks, t, parts[1:], n.end+1)
	case hasDigit(w):
		t.w = w
		t.mark(fIdent, true)
		return append(toks, t)
	}
	for _, p := range prefixes {
		if parts[0] == p || parts[0] == "re" || parts[0] == "pre" || parts[0] == "co" || parts[0] == "multi" {
			t.w = strings.Join(parts, "")
			return append(toks, t)
		}
	}
	return appendParts(toks, t, parts, t.start)
}

func appendParts(toks []tok, t tok, parts []string, at int32) []tok {
	for i, p := range parts {
		if p == "" {
			at++
			continue
		}
		u := t
		u.w, u.start, u.end = p, at, at+int32(len(p))
		if i > 0 || at != t.start {
			u.before = brkNone
			u.mark(fCaps, false)
		}
		toks = append(toks, u)
		at = u.end + 1
	}
	return toks
}

// joinPhrases writes the phrases of the lexicon as one token, and the
// temporal negators ("no longer", "used to") as one negator.
func joinPhrases(toks []tok) []tok {
	first := -1
	for i := range toks {
		if toks[i].lx&lxPhrase != 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return toks
	}
	out := toks[:first]
	for i := first; i < len(toks); {
		if n, w, neg, temporal := phraseAt(toks, i); n > 0 {
			t := toks[i]
			t.end, t.w, t.lx = toks[i+n-1].end, w, lexicon[w]
			if neg {
				t.kind = kNeg
				t.mark(fTemporal, temporal)
			}
			out = append(out, t)
			i += n
			continue
		}
		out = append(out, toks[i])
		i++
	}
	return out
}

func phraseAt(toks []tok, i int) (n int, w string, neg, temporal bool) {
	if toks[i].kind == kSym || toks[i].lx&lxPhrase == 0 {
		return 0, "", false, false
	}
	match := func(words []string) bool {
		if i+len(words) > len(toks) {
			return false
		}
		for k, x := range words {
			t := toks[i+k]
			if t.kind == kSym || t.w != x || (k > 0 && t.before >= brkSegment) {
				return false
			}
		}
		return true
	}
	for _, p := range negPhrases {
		if match(p.words) {
			return len(p.words), strings.Join(p.words, " "), true, p.temporal
		}
	}
	for _, p := range phrases {
		if match(p.words) {
			return len(p.words), p.as, false, false
		}
	}
	return 0, "", false, false
}

// classify sets a word token's kind, stem and pole.
func classify(toks []tok, i int) {
	t := &toks[i]
	if t.kind == kSym || t.kind == kNum || t.kind == kNeg {
		return
	}
	w := t.w
	if t.lx&lxNumber != 0 && numberWordCounts(toks, i) {
		t.kind, t.val, t.prec, t.sfx = kNum, numberWords[w], 0.5, uint8(min(len(w), 255))
		return
	}
	if (w == "last" || w == "first") && i+1 < len(toks) && timeWord(toks[i+1].w) {
		t.kind = kStop
		return
	}
	switch {
	case t.lx&lxStop != 0:
		t.kind = kStop
		return
	case t.lx&lxNeg != 0:
		t.kind = kNeg
		return
	case len(w) < 2 && !hasDigit(w):
		t.kind = kStop
		return
	}
	s := stem(w)
	if p, ok := poles[s]; ok {
		t.kind, t.stem, t.h, t.pole = kWord, s, hash(s), p
		return
	}
	switch {
	default:
		t.kind, t.stem, t.h = kWord, s, hash(s)
		t.mark(fIdent, t.is(fIdent) || hasDigit(w))
	}
}

// numberWordCounts reports whether a number word counts something here:
// "one" only before a unit ("one hour", "one in 40").
func numberWordCounts(toks []tok, i int) bool {
	if toks[i].w != "one" {
		return true
	}
	if i+1 >= len(toks) {
		return false
	}
	next := toks[i+1].w
	_, unit := timeUnits[next]
	return unit || next == "in"
}

func timeWord(w string) bool {
	switch w {
	case "week", "weeks", "month", "months", "year", "years", "night", "sprint", "quarter", "day", "days", "time", "release", "minute", "hour":
		return true
	}
	return len(w) > 0 && isDigit(w[0])
}

// fold lower-cases a word.
func fold(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
		if c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			return true
		}
	}
	return false
}
