package tui

import (
	"slices"
	"strings"
	"time"
)

// Glamour's cost is not proportional to the size of what it formats: each
// block costs a fraction of a millisecond to a few milliseconds, heading
// ids are found in quadratic time, and every level of nesting multiplies
// the work (a 70-byte unit of 64 nested quotes takes 14 s, a little deeper
// takes minutes). Agents write what they like, so the screen formats a
// unit in pieces against a time budget, and does not format what nests too
// deeply at all: the reader gets plain text, with a note, instead of a
// pane that says "Rendering…" forever.
const (
	// maxNesting is the deepest nesting of quotes and lists formatted.
	maxNesting = 8
	// pieceLines is how many lines glamour is given at a time; a piece
	// ends at a blank line before a top-level block once it has this many,
	// and at any line outside fenced code once it has twice as many.
	pieceLines = 64
	// renderBudget is how long formatting a unit may take; after it the
	// rest of the unit is shown as plain text.
	renderBudget = 750 * time.Millisecond
)

// nestingDepth is the deepest nesting of quotes and lists on any line of
// markdown text outside fenced code, as its line prefixes show it: each
// '>' and list marker is one level, and so is every two spaces among
// them (lists nest by indentation, inside quotes too). It may count a
// level too many, never one too few.
func nestingDepth(text string) int {
	deepest := 0
	var fence string
	for line := range strings.Lines(text) {
		if f, ok := fenceOf(line); ok {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
			continue
		}
		if fence == "" {
			deepest = max(deepest, lineDepth(line))
		}
	}
	return deepest
}

// lineDepth reads the container prefix of one line.
func lineDepth(line string) int {
	depth, cols := 0, 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ':
			cols++
			i++
		case c == '>':
			depth++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && line[i+1] == ' ':
			depth++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && line[j+1] == ' ' {
				depth++
				i = j + 2
				continue
			}
			return depth + cols/2
		default:
			return depth + cols/2
		}
	}
	return depth + cols/2
}

// fenceOf reports whether line opens or closes fenced code, and its fence
// (the run of backticks or tildes).
func fenceOf(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return "", false
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return "", false
	}
	return t[:n], true
}

// pieces splits markdown text into the pieces glamour formats one at a
// time (see pieceLines). The first piece may end sooner, once it has first
// lines: a pane's first screenful is formatted on its own (RenderHead). A
// fence is never split: fenced code costs glamour little per line.
func pieces(text string, first int) []string {
	var out []string
	start, lines, limit := 0, 0, first
	var fence string
	prevBlank := false
	pos := 0
	all := slices.Collect(strings.Lines(text))
	for i := 0; i < len(all); i++ {
		line := all[i]
		blank := strings.TrimSpace(line) == ""
		topLevel := !blank && line[0] != ' ' && lineDepth(line) == 0
		if fence == "" && topLevel && tableAt(all, i) {
			// A table is a piece of its own: renderTable lays it out.
			if pos > start {
				out = append(out, text[start:pos])
			}
			end := pos
			for ; i < len(all) && strings.TrimSpace(all[i]) != ""; i++ {
				end += len(all[i])
			}
			out = append(out, text[pos:end])
			start, pos, lines, limit, prevBlank = end, end, 0, pieceLines, false
			i-- // the blank line after it, or the end
			continue
		}
		if fence == "" && lines >= limit && (lines >= 2*pieceLines || prevBlank && topLevel) {
			out = append(out, text[start:pos])
			start, lines, limit = pos, 0, pieceLines
		}
		if f, ok := fenceOf(line); ok {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
		}
		pos += len(line)
		lines++
		prevBlank = blank
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
