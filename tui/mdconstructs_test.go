package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Every markdown construct comes out of the screen's formatting as
// glamour formats it at the pane's width — except block quotes, which
// glamour breaks at many widths (a quote's last word falls out of it,
// onto a line without the bar): those keep every word, in glamour's
// order, every line inside the bar and the pane.
func TestEveryConstructFormatsAsGlamourDoesAtThePanesWidth(t *testing.T) {
	constructs := map[string]string{
		"heading":      "# A heading\n\n## A second level that is rather long to wrap at narrow widths",
		"paragraph":    "A paragraph with **bold**, *emphasis*, `code` and a [link](https://example.com) that wraps at narrow widths.",
		"list":         "- one item that is long enough to wrap somewhere along the way\n- two\n  - nested under two, also long enough to wrap\n- three",
		"ordered":      "1. first step of the plan, long enough to wrap\n2. second\n3. third",
		"table":        "| Class | Share | Drift |\n|---|---:|---:|\n| same currency | 81.6 % | 0.004 % |\n| cross-currency | 12.9 % | 1.84 % |",
		"code":         "```go\nfunc main() { fmt.Println(\"a line of code that is long enough\") }\n```",
		"rule":         "Before.\n\n---\n\nAfter.",
		"mixed":        "Intro text.\n\n- a list\n- of two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nClosing words.",
		"quote":        ">  The fraud pipeline throttles `window_export` since the last deploy. The retry worker drops duplicate captures before the freeze.",
		"nested quote": "> outer words\n>\n> > The inner quote holds a sentence long enough to wrap at most widths of a pane.",
		"quote list":   "> - a quoted list item that is long enough to wrap at narrow widths\n> - another",
		"quote among":  "Before the quote.\n\n> A quote between two paragraphs, long enough to wrap at narrow widths.\n\nAfter the quote.",
	}
	md := newMarkdown()
	md.budget = unhurried().budget
	for name, text := range constructs {
		quote := strings.Contains(text, "> ")
		for w := 30; w <= 140; w += 7 {
			ours := ansi.Strip(md.Render(text, w, "dark"))
			theirs, err := md.render(text, w, "dark")
			if err != nil {
				t.Fatal(err)
			}
			theirs = ansi.Strip(strings.TrimRight(onlySGR(theirs), "\n "))
			if !quote {
				if trimLines(ours) != trimLines(theirs) {
					t.Errorf("%s at width %d:\nours:\n%s\nglamour:\n%s", name, w, ours, theirs)
				}
				continue
			}
			if got, want := words(ours), words(theirs); got != want {
				t.Errorf("%s at width %d: words\n%s\nwant glamour's\n%s", name, w, got, want)
			}
			inQuote := false
			for _, l := range strings.Split(ours, "\n") {
				tl := strings.TrimSpace(l)
				if ansi.StringWidth(strings.TrimRight(l, " ")) > w {
					t.Errorf("%s at width %d: a line wider than the pane: %q", name, w, l)
				}
				switch {
				case strings.HasPrefix(tl, "│"):
					inQuote = true
				case tl == "":
					inQuote = false
				case inQuote:
					t.Errorf("%s at width %d: a line fell out of the quote: %q\n%s", name, w, l, ours)
				}
			}
		}
	}
}

// trimLines is s without the blanks that end its lines, nor the blank
// lines around it.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// words is the text's words, bars and spacing left out.
func words(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " ")
}
