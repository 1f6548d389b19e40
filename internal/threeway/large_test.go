package threeway

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// document writes a markdown text of about size bytes: sections with a
// heading, a paragraph, a list, a table and a code block, as units are.
func document(size int) string {
	words := strings.Fields(`the ledger settles every payment twice during dual write while the recon
		job compares both sides nightly and reports drift by class of payment currency capture and day`)
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for s := 1; b.Len() < size; s++ {
		fmt.Fprintf(&b, "## Section %d\n\n", s)
		for l := 0; l < 4; l++ {
			for w := 0; w < 14; w++ {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
			b.WriteString("end.\n")
		}
		b.WriteString("\n")
		for i := 0; i < 4; i++ {
			fmt.Fprintf(&b, "- item %d of section %d: %s %s\n", i, s, words[r.IntN(len(words))], words[r.IntN(len(words))])
		}
		b.WriteString("\n| region | p99 | runs |\n|---|---:|---:|\n")
		for i := 0; i < 3; i++ {
			fmt.Fprintf(&b, "| region-%d | %d ms | %d |\n", i, 30+r.IntN(40), 10+r.IntN(20))
		}
		fmt.Fprintf(&b, "\n```sh\nbench --section %d --runs %d --warm\n```\n\n", s, r.IntN(50))
	}
	return b.String()
}

// revise changes one word in every `every` words from the word at offset
// on, the way a revision touches a long text here and there.
func revise(s, tag string, offset, every int) string {
	fields := strings.SplitAfter(s, " ")
	for i := offset; i < len(fields); i += every {
		if strings.ContainsAny(fields[i], "\n|`#") {
			continue
		}
		fields[i] = tag + strings.TrimLeft(fields[i], "ab") // keeps the trailing space
	}
	return strings.Join(fields, "")
}

func TestLongTextsWithScatteredChangesStayFineGrained(t *testing.T) {
	base := document(20_000)
	a := revise(base, "a", 3, 23)
	b := revise(base, "b", 11, 23)
	c := Compare(base, a, b)
	checkJoins(t, c, base, a, b)
	nA, nB := c.Count(ChangedA), c.Count(ChangedB)
	t.Logf("%d bytes: %d regions changed by A, %d by B, %d disputed", len(base), nA, nB, c.Count(Disputed))
	// Each side changes well over a hundred words apart from the other's:
	// lcs alone stops after about a hundred differences.
	if nA < 100 || nB < 100 || c.Count(Disputed) != 0 {
		t.Fatalf("%d regions changed by A, %d by B, %d disputed: the changes ran together", nA, nB, c.Count(Disputed))
	}
	text, n := c.Suggest()
	if n != 0 || text != revise(a, "b", 11, 23) {
		t.Fatalf("the suggestion (%d alternatives) is not both revisions applied", n)
	}
	if text, _ := Compare(base, a, base).Suggest(); text != a {
		t.Fatal("with B unchanged, the suggestion is not A")
	}
}

// benchTexts are a 20 KB ancestor and two 20 KB revisions of it, A
// changing 66 words and B 71, once the same word differently.
func benchTexts() (base, a, b string) {
	base = document(20_000)
	return base, revise(base, "a", 3, 41), revise(base, "b", 17, 37)
}

func BenchmarkCompare20KB(b *testing.B) {
	base, x, y := benchTexts()
	b.SetBytes(int64(len(base) + len(x) + len(y)))
	for b.Loop() {
		Compare(base, x, y)
	}
}

func BenchmarkCompareAndAnnotate20KB(b *testing.B) {
	base, x, y := benchTexts()
	b.SetBytes(int64(len(base) + len(x) + len(y)))
	for b.Loop() {
		_ = Compare(base, x, y).Annotated()
	}
}

func BenchmarkCompareAndRows20KB(b *testing.B) {
	base, x, y := benchTexts()
	for b.Loop() {
		_ = Compare(base, x, y).Rows()
	}
}

func BenchmarkSuggest20KB(b *testing.B) {
	base, x, y := benchTexts()
	for b.Loop() {
		Compare(base, x, y).Suggest()
	}
}

func BenchmarkCompareTwo20KB(b *testing.B) {
	_, x, y := benchTexts()
	for b.Loop() {
		_ = CompareTwo(x, y).Annotated()
	}
}

// TestRepetitiveTextWithManyChangesStaysFineGrained: in one long line of
// a small vocabulary no word is unique, so nothing anchors the diff and
// lcs meets more than a hundred differences on its own.
func TestRepetitiveTextWithManyChangesStaysFineGrained(t *testing.T) {
	base := repetitive(3000)
	a, bb := revise(base, "a", 3, 19), revise(base, "b", 11, 19)
	c := Compare(base, a, bb)
	checkJoins(t, c, base, a, bb)
	if nA, nB := c.Count(ChangedA), c.Count(ChangedB); nA < 120 || nB < 120 || c.Count(Disputed) != 0 {
		t.Fatalf("%d regions changed by A, %d by B, %d disputed: the changes ran together", nA, nB, c.Count(Disputed))
	}
	if text, n := c.Suggest(); n != 0 || text != revise(a, "b", 11, 19) {
		t.Fatalf("the suggestion (%d alternatives) is not both revisions applied", n)
	}
}

// TestSentencesAlignOnTheirWords: the demo's sentence, where lcs alone
// matched the "/s" of two different figures.
func TestSentencesAlignOnTheirWords(t *testing.T) {
	base := "Black Friday 2025 peaked at about 3,000 authorisations/s, so the load target is 6,000/s.\n"
	a := "Black Friday 2025 peaked at 4,200 authorisations/s on the gateway dashboard and held above 3,500/s for 40 minutes, so the load target is 8,400/s.\n"
	b := "Black Friday 2025 peaked at 1,850 distinct authorisations/s, so the load target is 3,700/s.\n"
	got := Compare(base, a, b).Annotated()
	for _, want := range []string{"peaked at [base: about 3,000][A: 4,200][B: 1,850 distinct] authorisations",
		"target is [base: 6,000][A: 8,400][B: 3,700]/s."} {
		if !strings.Contains(got, want) {
			t.Errorf("Annotated:\n%s\nlacks %q", got, want)
		}
	}
}

// repetitive is one line of n words from a vocabulary of eleven.
func repetitive(n int) string {
	words := strings.Fields("the ledger settles each payment and the recon job compares both sides")
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(words[(i*7)%len(words)] + " ")
	}
	return b.String()
}

// BenchmarkCompareRepetitive20KB is the diff's hard case: one 19 KB line
// in which no word is unique, changed in about 160 places by each side.
func BenchmarkCompareRepetitive20KB(b *testing.B) {
	base := repetitive(3300)
	x, y := revise(base, "a", 3, 19), revise(base, "b", 11, 19)
	b.SetBytes(int64(len(base) + len(x) + len(y)))
	for b.Loop() {
		_ = Compare(base, x, y).Annotated()
	}
}
