package threeway

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// text is one version cut into lines and tokens. Joined in order, the
// lines are the text, and so are the tokens: nothing is lost.
type text struct {
	lines []string // each with its '\n', but a last line without one
	toks  []string
	// lineTok[i] is the index in toks of line i's first token;
	// lineTok[len(lines)] is len(toks).
	lineTok []int
}

// cut splits s into lines and each line into tokens.
func cut(s string) *text {
	t := &text{toks: make([]string, 0, len(s)/3)}
	var fence string // the open code fence's marker ("```", "~~~~"), "" outside one
	for len(s) > 0 {
		n := strings.IndexByte(s, '\n') + 1
		if n == 0 {
			n = len(s)
		}
		line := s[:n]
		s = s[n:]
		t.lines = append(t.lines, line)
		t.lineTok = append(t.lineTok, len(t.toks))
		t.toks = tokenizeLine(line, &fence, t.toks)
	}
	t.lineTok = append(t.lineTok, len(t.toks))
	return t
}

// tokenizeLine appends line's tokens to out. fence tracks fenced code
// blocks across lines.
func tokenizeLine(line string, fence *string, out []string) []string {
	body := strings.TrimSuffix(line, "\n")
	indent := len(body) - len(strings.TrimLeft(body, " \t"))
	rest := body[indent:]
	if m := fenceMarker(rest); m != "" && (*fence == "" || (m[0] == (*fence)[0] && len(m) >= len(*fence) && strings.TrimSpace(rest[len(m):]) == "")) {
		// A fence line, opening or closing, is one token: its marker and
		// info string change together.
		if *fence == "" {
			*fence = m
		} else {
			*fence = ""
		}
		if indent > 0 {
			out = append(out, body[:indent])
		}
		out = append(out, rest)
	} else {
		if indent > 0 {
			out = append(out, body[:indent])
		}
		if *fence == "" {
			var marks []string
			marks, rest = markup(rest)
			out = append(out, marks...)
		}
		out = words(rest, out)
	}
	if len(body) < len(line) {
		out = append(out, "\n")
	}
	return out
}

// fenceMarker returns the run of three or more backticks or tildes that
// s starts with, or "".
func fenceMarker(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}

// markup splits off a line's leading block markup, outside code: any
// number of quote markers ("> "), then a heading ("## ") or a list item
// marker ("- ", "* ", "+ ", "12. ", "3) "), each with the space after it.
func markup(s string) (marks []string, rest string) {
	for strings.HasPrefix(s, ">") {
		n := 1
		if len(s) > 1 && s[1] == ' ' {
			n = 2
		}
		marks, s = append(marks, s[:n]), s[n:]
	}
	n := 0
	switch {
	case strings.HasPrefix(s, "#"):
		for n < len(s) && n < 6 && s[n] == '#' {
			n++
		}
	case strings.HasPrefix(s, "- "), strings.HasPrefix(s, "* "), strings.HasPrefix(s, "+ "):
		n = 1
	default:
		for n < len(s) && n < 9 && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return marks, s
		}
		n++
	}
	if n < len(s) && s[n] == ' ' {
		return append(marks, s[:n+1]), s[n+1:]
	}
	return marks, s
}

// words appends the tokens of s: words, runs of spaces, and every other
// rune (punctuation, symbols, controls, invalid bytes) on its own.
func words(s string, out []string) []string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		j := i + size
		switch {
		case r == ' ' || r == '\t':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
		case isWord(r):
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if isWord(r) {
					j += size
					continue
				}
				// A connector joins two runs of a word: 0.004, 6,412,880,
				// half-even, don't.
				if isConnector(r) && j+size < len(s) {
					if next, _ := utf8.DecodeRuneInString(s[j+size:]); isWord(next) {
						j += size
						continue
					}
				}
				break
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func isConnector(r rune) bool {
	return r == '.' || r == ',' || r == '-' || r == '\'' || r == '’'
}
