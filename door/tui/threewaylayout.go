package tui

import (
	"strings"
	"unicode/utf8"

	"arbiter/internal/threeway"

	"github.com/charmbracelet/x/ansi"
)

// The three-way view's text: a comparison's rows laid out in three panes
// of one width (the ancestor's, A's and B's), each row padded to its
// tallest version so that the panes hold as many lines and scroll
// together. Each line starts with a gutter of two marks that say, without
// colour, what changed on it: "A " or " B" (changed by that side only),
// "AB" (each side changed other words), "==" (both changed it alike),
// "!!" (both changed it, differently). The changed words themselves are
// tinted (underlined without colour).

// gutterW is the cells before a line's text: the two marks and a space.
const gutterW = 3

// threeLaid is a comparison laid out for panes of one width.
type threeLaid struct {
	// panes are the base's, A's and B's lines, as many in each.
	panes [3]measured
	// cut: the texts were longer than the view lays out; the rest is
	// left out.
	cut bool
}

// piece is a stretch of one line's text and how it changed.
type piece struct {
	text string
	ch   threeway.Change
}

// laidLine is one line of a pane as laid out: its pieces and its width.
type laidLine struct {
	pieces []piece
	w      int
}

// layThree lays out rows for panes innerW cells wide, up to about
// maxRenderBytes of each text.
func layThree(rows []threeway.Row, st Styles, innerW int) *threeLaid {
	out := &threeLaid{}
	textW := max(1, innerW-gutterW)
	var lines [3][]laidLine
	laidBytes := 0
	for _, r := range rows {
		if laidBytes > maxRenderBytes {
			out.cut = true
			break
		}
		n, rowBytes := 0, 0
		for i, spans := range [3][]threeway.Span{r.Base, r.A, r.B} {
			lines[i] = layLines(spans, textW, lines[i][:0])
			n = max(n, len(lines[i]))
			size := 0
			for _, s := range spans {
				size += len(s.Text)
			}
			rowBytes = max(rowBytes, size)
		}
		laidBytes += rowBytes
		for i := range lines {
			for j := range n {
				if j < len(lines[i]) {
					text, w := lines[i][j].render(st)
					out.panes[i].lines = append(out.panes[i].lines, text)
					out.panes[i].widths = append(out.panes[i].widths, min(w, innerW))
				} else {
					out.panes[i].lines = append(out.panes[i].lines, "")
					out.panes[i].widths = append(out.panes[i].widths, 0)
				}
			}
		}
	}
	return out
}

// layLines lays out one version's spans of a row in lines at most w
// cells wide, broken at spaces (a word longer than a line is cut), and
// appends them to out.
func layLines(spans []threeway.Span, w int, out []laidLine) []laidLine {
	l := liner{w: w, out: out}
	var line []piece // the text's own line, before it is wrapped
	open := false
	for _, s := range spans {
		text := s.Text
		for text != "" {
			part, rest, nl := strings.Cut(text, "\n")
			if part != "" {
				line = append(line, piece{part, s.Change})
			}
			open = !nl
			if nl {
				l.line(line)
				line = line[:0]
			}
			text = rest
		}
	}
	if open {
		l.line(line)
	}
	return l.out
}

// liner fills lines word by word.
type liner struct {
	w    int
	cur  laidLine
	out  []laidLine
	word []piece // the word being read: it may change within
}

// line lays out one of the text's own lines.
func (l *liner) line(pieces []piece) {
	for _, p := range pieces {
		for s := p.text; s != ""; {
			space := s[0] == ' '
			i := 1
			for i < len(s) && (s[i] == ' ') == space {
				i++
			}
			if space {
				l.flushWord()
				l.spaces(s[:i], p.ch)
			} else {
				l.word = append(l.word, piece{s[:i], p.ch})
			}
			s = s[i:]
		}
	}
	l.flushWord()
	l.out = append(l.out, l.cur)
	l.cur = laidLine{}
}

// wrap ends the current line where the text goes on: the spaces it ends
// with are dropped.
func (l *liner) wrap() {
	ps := l.cur.pieces
	for len(ps) > 0 {
		last := &ps[len(ps)-1]
		trimmed := strings.TrimRight(last.text, " ")
		l.cur.w -= len(last.text) - len(trimmed)
		if trimmed != "" {
			last.text = trimmed
			break
		}
		ps = ps[:len(ps)-1]
	}
	l.cur.pieces = ps
	l.out = append(l.out, l.cur)
	l.cur = laidLine{}
}

// put adds text of width tw to the current line.
func (l *liner) put(text string, tw int, ch threeway.Change) {
	ps := l.cur.pieces
	if n := len(ps); n > 0 && ps[n-1].ch == ch {
		ps[n-1].text += text
	} else {
		l.cur.pieces = append(ps, piece{text, ch})
	}
	l.cur.w += tw
}

// spaces adds a run of spaces, or breaks the line there.
func (l *liner) spaces(s string, ch threeway.Change) {
	switch {
	case l.cur.w+len(s) <= l.w:
		l.put(s, len(s), ch)
	case l.cur.w > 0:
		l.wrap()
	}
}

// flushWord adds the word read so far: on the current line if it fits,
// else on the next, cut into lines if it is wider than one.
func (l *liner) flushWord() {
	word := l.word
	l.word = l.word[:0]
	ww := 0
	for _, p := range word {
		ww += cells(p.text)
	}
	if ww == 0 {
		return
	}
	if l.cur.w+ww > l.w && l.cur.w > 0 {
		l.wrap()
	}
	for _, p := range word {
		tok := p.text
		tw := cells(tok)
		for l.cur.w+tw > l.w {
			head := ansi.Truncate(tok, l.w-l.cur.w, "")
			if head == "" && l.cur.w == 0 { // one character wider than the line
				_, size := utf8.DecodeRuneInString(tok)
				head = tok[:size]
			}
			if head != "" {
				l.put(head, cells(head), p.ch)
			}
			l.wrap()
			tok = tok[len(head):]
			tw = cells(tok)
		}
		if tok != "" {
			l.put(tok, tw, p.ch)
		}
	}
}

// cells is the width of plain text in cells.
func cells(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// render draws the line: its gutter, then its pieces, the changed ones
// styled; and its width in cells.
func (l laidLine) render(st Styles) (string, int) {
	var seen [threeway.Disputed + 1]bool
	for _, p := range l.pieces {
		seen[p.ch] = true
	}
	var b strings.Builder
	t := st.Three
	switch {
	case seen[threeway.Disputed]:
		b.WriteString(t.MarkDisputed.Render("!!"))
	case seen[threeway.ChangedBoth]:
		b.WriteString(t.MarkBoth.Render("=="))
	case seen[threeway.ChangedA] && seen[threeway.ChangedB]:
		b.WriteString(t.MarkA.Render("A") + t.MarkB.Render("B"))
	case seen[threeway.ChangedA]:
		b.WriteString(t.MarkA.Render("A") + " ")
	case seen[threeway.ChangedB]:
		b.WriteString(" " + t.MarkB.Render("B"))
	default:
		b.WriteString("  ")
	}
	b.WriteByte(' ')
	for _, p := range l.pieces {
		switch p.ch {
		case threeway.ChangedA:
			b.WriteString(t.A.Render(p.text))
		case threeway.ChangedB:
			b.WriteString(t.B.Render(p.text))
		case threeway.ChangedBoth:
			b.WriteString(t.Both.Render(p.text))
		case threeway.Disputed:
			b.WriteString(t.Disputed.Render(p.text))
		default:
			b.WriteString(p.text)
		}
	}
	return b.String(), gutterW + l.w
}
