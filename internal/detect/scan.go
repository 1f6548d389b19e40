package detect

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Bounds on what is read of a unit, so that comparing two units costs
// little whatever their size: a claim is made in the first paragraphs; a
// long document's later sections are not compared (they would cost more
// than the signal they add).
const (
	maxScan       = 16 << 10 // bytes of content
	maxTokens     = 600      // tokens read
	maxQuantities = 64       // values compared
	maxSubject    = 24       // words around a value
	maxNegators   = 8        // negators of a claim looked at
)

// brk is the strength of a boundary between two tokens.
type brk uint8

const (
	brkNone     brk = iota
	brkComma        // a comma: words on either side are not neighbours
	brkSegment      // ; : ( ) | — and the like: a new claim may start
	brkSentence     // . ! ? a blank line, a list item, a heading
)

// raw is a token as the scanner cuts it from the content, before it is
// read: a word (letters, digits and the joiners inside them) or a symbol.
type raw struct {
	start, end int32
	sym        rune // for a symbol token; 0 for a word
	before     brk  // the boundary between the previous token and this one
	question   bool // a sentence break made by a question mark
	colon      bool // a segment break made by a colon
}

// scanner cuts content into raw tokens, reading markdown as text: fenced
// code is skipped, link targets are skipped, emphasis, headings, quotes and
// table rules are separators.
type scanner struct {
	s       string
	out     []raw
	pending brk
	pendQ   bool
	pendC   bool
}

func (sc *scanner) mark(b brk) {
	if b > sc.pending {
		sc.pending = b
	}
}

func (sc *scanner) emit(start, end int, sym rune) {
	sc.out = append(sc.out, raw{start: int32(start), end: int32(end), sym: sym, before: sc.pending, question: sc.pendQ,
		colon: sc.pendC && sc.pending == brkSegment})
	sc.pending, sc.pendQ, sc.pendC = brkNone, false, false
}

// rawBuffers keep the scanner's output between reads: it is only needed
// until the tokens are read from it.
var rawBuffers = sync.Pool{New: func() any { return &scanner{out: make([]raw, 0, 256)} }}

// scan cuts s into raw tokens. The slice is the scanner's: give the
// scanner back with rawBuffers.Put when done with it.
func scan(s string) *scanner {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	sc := rawBuffers.Get().(*scanner)
	sc.s, sc.out, sc.pending, sc.pendQ, sc.pendC = s, sc.out[:0], brkNone, false, false
	lineStart := true
	for i := 0; i < len(s) && len(sc.out) < maxTokens; {
		c := s[i]
		if lineStart {
			if j, ok := sc.lineStart(i); ok {
				i = j
				continue
			}
			lineStart = false
		}
		switch {
		case c == '\n':
			sc.mark(brkComma)
			if next := i + 1; next < len(s) && (s[next] == '\n' || blockStart(s[next:])) {
				sc.mark(brkSentence)
			}
			lineStart = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '*' || c == '#' || c == '`' || c == '_' || c == '"' || c == '\'':
			i++
		case c == '.' || c == '!' || c == '?':
			if i+1 >= len(s) || isSpaceOrClose(s[i+1]) {
				sc.mark(brkSentence)
				if c == '?' {
					sc.pendQ = true
				}
			}
			i++
		case c == ';' || c == ':' || c == '(' || c == ')' || c == '[' || c == '{' || c == '}' || c == '|':
			sc.mark(brkSegment)
			sc.pendC = sc.pendC || c == ':'
			i++
		case c == ']':
			sc.mark(brkSegment)
			i++
			if i < len(s) && s[i] == '(' { // a link's target
				for i < len(s) && s[i] != ')' && s[i] != '\n' {
					i++
				}
			}
		case c == ',':
			sc.mark(brkComma)
			i++
		case c == '-':
			if i+1 < len(s) && s[i+1] == '>' {
				sc.emit(i, i+2, '→')
				i += 2
			} else {
				sc.mark(brkSegment) // " - " between words
				i++
			}
		case c == '$' || c == '%' || c == '~' || c == '<' || c == '>' || c == '/' || c == '+' || c == '=':
			sc.emit(i, i+1, rune(c))
			i++
		case isWordByte(c):
			i = sc.word(i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				i = sc.word(i)
				continue
			case r == '—' || r == '–':
				sc.mark(brkSegment)
			case r == '’' || r == '“' || r == '”':
			case r == '€' || r == '£' || r == '≈' || r == '≤' || r == '≥' || r == '±' || r == '×' || r == '→':
				sc.emit(i, i+n, r)
			}
			i += n
		}
	}
	return sc
}

// lineStart skips what opens a markdown line: a fenced code block (to its
// end), a list marker, a heading, a quote or a table rule. It reports
// where the line's text starts, or false when there is nothing to skip.
func (sc *scanner) lineStart(i int) (int, bool) {
	s := sc.s
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j+3 <= len(s) && s[j:j+3] == "```" {
		end := j + 3
		for end < len(s) {
			nl := indexByteFrom(s, end, '\n')
			if nl < 0 {
				end = len(s)
				break
			}
			end = nl + 1
			k := end
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k+3 <= len(s) && s[k:k+3] == "```" {
				end = k + 3
				break
			}
		}
		sc.mark(brkSentence)
		return end, true
	}
	if j < len(s) && blockStart(s[j:]) {
		k := j
		for k < len(s) && (s[k] == '-' || s[k] == '*' || s[k] == '+' || s[k] == '#' || s[k] == '>' || s[k] == '|' || s[k] == ' ' || (s[k] >= '0' && s[k] <= '9' && listNumber(s[k:]))) {
			if s[k] >= '0' && s[k] <= '9' {
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					k++
				}
			}
			k++
		}
		sc.mark(brkSentence)
		return k, true
	}
	return i, false
}

// blockStart reports whether a line starting with s opens a block of its
// own: a list item, a heading, a quote, a table row.
func blockStart(s string) bool {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	if len(s) < 2 {
		return false
	}
	switch s[0] {
	case '#', '>', '|':
		return true
	case '-', '*', '+':
		return s[1] == ' '
	}
	return listNumber(s)
}

// listNumber reports whether s starts with "1. " or "1) ".
func listNumber(s string) bool {
	k := 0
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	return k > 0 && k+1 < len(s) && (s[k] == '.' || s[k] == ')') && s[k+1] == ' '
}

// word scans a word from i: letters and digits, joined by the marks that
// stay inside a word ("go.mod", "1,800", "14:02", "db-eu-2", "don't").
func (sc *scanner) word(i int) int {
	s := sc.s
	start := i
	for i < len(s) {
		c := s[i]
		if isWordByte(c) {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				i += n
				continue
			}
			if (r == '’') && i+n < len(s) && isLetter(s[i+n]) {
				i += n
				continue
			}
			break
		}
		if i+1 >= len(s) {
			break
		}
		next := s[i+1]
		switch {
		case (c == '.' || c == '-' || c == '_') && isWordByte(next):
		case c == '\'' && isLetter(next):
		case (c == ',' || c == ':') && isDigit(s[i-1]) && isDigit(next) && (c == ':' || threeDigits(s[i+1:])):
		default:
			sc.emit(start, i, 0)
			return i
		}
		i++
	}
	sc.emit(start, i, 0)
	return i
}

// threeDigits reports whether s starts with exactly three digits (the
// thousands of "1,800", not the list of "3,4").
func threeDigits(s string) bool {
	return len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && (len(s) == 3 || !isDigit(s[3]))
}

func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) }
func isLetter(c byte) bool   { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }

func isSpaceOrClose(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ')' || c == '"' || c == '\'' || c == '*' || c == '_' || c == '`'
}

func indexByteFrom(s string, from int, b byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}
