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
// order, every line inside the bar and the pane; and tables, which
// glamour cuts at many widths ("$7.3" for "$7.3k"): renderTable lays
// them out, every word of every cell kept, every line inside the pane.
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
			if strings.Contains(text, "|") {
				for _, l := range strings.Split(ours, "\n") {
					if ansi.StringWidth(strings.TrimRight(l, " ")) > w {
						t.Errorf("%s at width %d: a line wider than the pane: %q", name, w, l)
					}
				}
				for _, word := range strings.Fields(strings.NewReplacer("|", " ", "---:", " ", "---", " ", "**", "").Replace(text)) {
					if word != "-" && !strings.Contains(ours, word) {
						t.Errorf("%s at width %d: %q is missing:\n%s", name, w, word, ours)
					}
				}
				continue
			}
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

// A table keeps every cell whole at every width, as conflict-014's costs
// did not ("$7.3" for $7.3k, a header "Tota"): its cells wrap, or, too
// narrow for its columns, it shows one record per row; no line is wider
// than the pane.
func TestTablesKeepEveryCellAtEveryWidth(t *testing.T) {
	table := "Keep Quarry warm for **7 days**.\n\n| Warm period | Infra | On-call (two stacks) | Total |\n|---|---:|---:|---:|\n" +
		"| 7 days | $4.2k | $3.1k | **$7.3k** |\n| 30 days | $18.0k | $13.4k | **$31.4k** |\n"
	md := newMarkdown()
	md.budget = unhurried().budget
	for w := 20; w <= 100; w++ {
		out := ansi.Strip(md.Render(table, w, "dark"))
		for _, l := range strings.Split(out, "\n") {
			if n := ansi.StringWidth(strings.TrimRight(l, " ")); n > w {
				t.Errorf("width %d: a line of %d cells: %q", w, n, l)
			}
		}
		flat := strings.Join(strings.Fields(out), " ")
		for _, cell := range []string{"$4.2k", "$3.1k", "$7.3k", "$18.0k", "$13.4k", "$31.4k", "Total", "Infra"} {
			if !strings.Contains(flat, cell) {
				t.Errorf("width %d: %q is cut:\n%s", w, cell, out)
			}
		}
	}
}
