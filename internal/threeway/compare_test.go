package threeway

import (
	"strings"
	"testing"
)

// latencyBase is the earlier unit both sides revise in most cases: a
// heading, a list, a table, a code line.
const latencyBase = `# Checkout latency

p99 is 40 ms in the lab.

- runs: 10 nightly
- cache: warm

| region | p99 |
|---|---:|
| eu-west | 40 ms |
| us-east | 44 ms |

` + "```sh\nbench --runs 10 --warm\n```\n"

// edit replaces each old with new in s, once each, and fails loudly if
// old is missing, so a case cannot silently compare equal texts.
func edit(s string, pairs ...string) string {
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			panic("edit: no " + pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name          string
		base, a, b    string
		annotated     string
		suggestion    string
		unsettled     int
		wantRegions   map[Change]int // checked when set
		exactSuggests string         // "A" or "B": the suggestion is that side
	}{
		{
			name: "the blog's example: each side's change is taken",
			base: "I like coffee", a: "I like coffee and tea", b: "I love coffee",
			annotated:  "I [base: like][B: love] coffee[A:  and tea]",
			suggestion: "I love coffee and tea",
		},
		{
			name: "B unchanged: the suggestion is A, with no alternatives",
			base: latencyBase, b: latencyBase,
			a:             edit(latencyBase, "40 ms in the lab", "55 ms in production", "| 44 ms", "| 47 ms", "--runs 10", "--runs 20"),
			exactSuggests: "A",
			wantRegions:   map[Change]int{ChangedA: 4, ChangedB: 0, Disputed: 0},
		},
		{
			name: "A unchanged: the suggestion is B",
			base: latencyBase, a: latencyBase,
			b:             edit(latencyBase, "- cache: warm\n", "- cache: warm\n- host: bench-3\n", "# Checkout", "## Checkout"),
			exactSuggests: "B",
			wantRegions:   map[Change]int{ChangedB: 2, ChangedA: 0, Disputed: 0},
		},
		{
			name:        "both changed the same words alike: taken once",
			base:        "p99 is 40 ms in the lab.\n",
			a:           "p99 is 45 ms in the lab, after the cache fix.\n",
			b:           "p99 is 45 ms in the lab.\n",
			annotated:   "p99 is [base: 40][A+B: 45] ms in the lab[A: , after the cache fix].\n",
			suggestion:  "p99 is 45 ms in the lab, after the cache fix.\n",
			wantRegions: map[Change]int{ChangedBoth: 1, ChangedA: 1, Disputed: 0},
		},
		{
			name: "a table cell, a list item and a code line changed differently",
			base: latencyBase,
			a:    edit(latencyBase, "- runs: 10 nightly", "- runs: 14 nightly", "| eu-west | 40 ms |", "| eu-west | 52 ms |", "--runs 10", "--runs 20"),
			b:    edit(latencyBase, "- runs: 10 nightly", "- runs: 12 hourly", "| eu-west | 40 ms |", "| eu-west | 39 ms |", "--runs 10", "--runs 30"),
			annotated: `# Checkout latency

p99 is 40 ms in the lab.

- runs: [base: 10][A: 14][B: 12] [base: nightly][B: hourly]
- cache: warm

| region | p99 |
|---|---:|
| eu-west | [base: 40][A: 52][B: 39] ms |
| us-east | 44 ms |

` + "```sh\nbench --runs [base: 10][A: 20][B: 30] --warm\n```\n",
			suggestion: `# Checkout latency

p99 is 40 ms in the lab.

<<<<<<< A
- runs: 14 nightly
=======
- runs: 12 hourly
>>>>>>> B
- cache: warm

| region | p99 |
|---|---:|
<<<<<<< A
| eu-west | 52 ms |
=======
| eu-west | 39 ms |
>>>>>>> B
| us-east | 44 ms |

` + "```sh\n<<<<<<< A\nbench --runs 20 --warm\n=======\nbench --runs 30 --warm\n>>>>>>> B\n```\n",
			unsettled:   3,
			wantRegions: map[Change]int{Disputed: 3, ChangedA: 0, ChangedB: 1},
		},
		{
			name:       "a disputed line is offered as each side wrote it",
			base:       "p99 is 40 ms in the lab.\n",
			a:          "p99 is 55 ms in production.\n",
			b:          "p99 is 38 ms in the lab.\n",
			annotated:  "p99 is [base: 40][A: 55][B: 38] ms in [base: the lab][A: production].\n",
			suggestion: "<<<<<<< A\np99 is 55 ms in production.\n=======\np99 is 38 ms in the lab.\n>>>>>>> B\n",
			unsettled:  1,
		},
		{
			name: "lines added at one place by both, differently",
			base: "- a\n- b\n", a: "- a\n- x\n- b\n", b: "- a\n- y\n- b\n",
			annotated:  "- a\n[A: - x][B: - y]\n- b\n",
			suggestion: "- a\n<<<<<<< A\n- x\n=======\n- y\n>>>>>>> B\n- b\n",
			unsettled:  1,
		},
		{
			name: "the same line added by both",
			base: "- a\n- b\n", a: "- a\n- x\n- b\n", b: "- a\n- x\n- b\n",
			annotated:  "- a\n[A+B: - x]\n- b\n",
			suggestion: "- a\n- x\n- b\n",
		},
		{
			name: "a line one side removed and the other left alone",
			base: "- a\n- b\n- c\n", a: "- a\n- c\n", b: "- a\n- b\n- c\n- d\n",
			annotated:  "- a\n[base: - b][A deleted]\n- c\n[B: - d]\n",
			suggestion: "- a\n- c\n- d\n",
		},
		{
			name: "one side rewrites a line the other side removed",
			base: "- a\n- b\n- c\n", a: "- a\n- c\n", b: "- a\n- b is now B\n- c\n",
			annotated:  "- a\n[base: - b][A deleted][B: - b is now B]\n- c\n",
			suggestion: "- a\n<<<<<<< A\n=======\n- b is now B\n>>>>>>> B\n- c\n",
			unsettled:  1,
		},
		{
			name: "words inserted at one spot by both, differently",
			base: "Targets: p99.", a: "Targets: p99 under 40 ms.", b: "Targets: p99 under 90 ms.",
			annotated:  "Targets: p99[A:  under 40 ms][B:  under 90 ms].",
			suggestion: "<<<<<<< A\nTargets: p99 under 40 ms.\n=======\nTargets: p99 under 90 ms.\n>>>>>>> B",
			unsettled:  1,
		},
		{
			name: "neighbouring words changed by each side: both taken",
			base: "p99 is 40 ms", a: "p99 is 45 ms", b: "p99 is 40 µs",
			annotated:  "p99 is [base: 40][A: 45] [base: ms][B: µs]",
			suggestion: "p99 is 45 µs",
		},
		{
			name: "nothing changed",
			base: latencyBase, a: latencyBase, b: latencyBase,
			annotated: latencyBase, suggestion: latencyBase,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.base, tc.a, tc.b)
			checkJoins(t, c, tc.base, tc.a, tc.b)
			if tc.annotated != "" {
				if got := c.Annotated(); got != tc.annotated {
					t.Errorf("Annotated:\n%s\nwant:\n%s", got, tc.annotated)
				}
			}
			text, n := c.Suggest()
			want := tc.suggestion
			switch tc.exactSuggests {
			case "A":
				want = tc.a
			case "B":
				want = tc.b
			}
			if text != want {
				t.Errorf("Suggest:\n%s\nwant:\n%s", text, want)
			}
			if n != tc.unsettled || Unsettled(text) != tc.unsettled {
				t.Errorf("unsettled = %d (Unsettled counts %d), want %d", n, Unsettled(text), tc.unsettled)
			}
			for ch, want := range tc.wantRegions {
				if got := c.Count(ch); got != want {
					t.Errorf("%d regions %s, want %d", got, ch, want)
				}
			}
		})
	}
}

func TestCompareTwoTakesTheCommonPartsAndOffersTheRest(t *testing.T) {
	a := "# Latency\n\np99 is 55 ms in production.\n\n| eu-west | 52 ms |\n"
	b := "# Latency\n\np99 is 38 ms in the lab.\n\n| eu-west | 52 ms |\n- host: bench-3\n"
	c := CompareTwo(a, b)
	checkJoins(t, c, "", a, b)
	if c.ThreeWay || c.Count(ChangedA)+c.Count(ChangedB)+c.Count(ChangedBoth) != 0 {
		t.Fatalf("a two-way comparison with three-way changes: %+v", c)
	}
	wantAnnotated := "# Latency\n\np99 is [A: 55][B: 38] ms in [A: production][B: the lab].\n\n| eu-west | 52 ms |\n[B: - host: bench-3]\n"
	if got := c.Annotated(); got != wantAnnotated {
		t.Errorf("Annotated:\n%s\nwant:\n%s", got, wantAnnotated)
	}
	wantSuggestion := "# Latency\n\n<<<<<<< A\np99 is 55 ms in production.\n=======\np99 is 38 ms in the lab.\n>>>>>>> B\n\n| eu-west | 52 ms |\n" +
		"<<<<<<< A\n=======\n- host: bench-3\n>>>>>>> B\n"
	text, n := c.Suggest()
	if text != wantSuggestion || n != 2 {
		t.Errorf("Suggest (%d):\n%s\nwant (2):\n%s", n, text, wantSuggestion)
	}
	if same, n := CompareTwo(a, a).Suggest(); same != a || n != 0 {
		t.Errorf("two equal texts suggest %q (%d)", same, n)
	}
}

func TestAnnotatedEscapesMarkersInTheTexts(t *testing.T) {
	base := "Say [A: yes] here.\n"
	a := "Say [A: yes] there.\n"
	c := Compare(base, a, base)
	want := `Say \[A: yes] [base: here][A: there].` + "\n"
	if got := c.Annotated(); got != want {
		t.Fatalf("Annotated = %q, want %q", got, want)
	}
}

func TestUnsettledCountsMarkerGroups(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"plain text\n", 0},
		{"Title\n=======\n\ntext\n", 0}, // a setext heading is no marker
		{"<<<<<<< A\nx\n=======\ny\n>>>>>>> B\n", 1},
		{"<<<<<<< A\nx\n=======\ny\n>>>>>>> B\nz\n<<<<<<< A\n=======\nw\n>>>>>>> B", 2},
		{"<<<<<<< A\nx\n=======\ny\n", 1},       // the closing line deleted
		{"x\n=======\ny\n>>>>>>> B\n", 1},       // the opening line deleted
		{"kept x\nkept y\n>>>>>>> B\n", 1},      // only a closing line left
		{"a\n<<<<<<< A\n<<<<<<< A\nb\n", 2},     // two openers
		{"inline <<<<<<< A is not a line\n", 0}, // only at the start of a line
	} {
		if got := Unsettled(tc.text); got != tc.want {
			t.Errorf("Unsettled(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// checkJoins fails unless the regions join back into the texts, and the
// rows into the regions, line for line.
func checkJoins(t *testing.T, c Comparison, base, a, b string) {
	t.Helper()
	var gb, ga, gbb strings.Builder
	for _, r := range c.Regions {
		gb.WriteString(r.Base)
		ga.WriteString(r.A)
		gbb.WriteString(r.B)
		if r.Change == Unchanged && (r.A != r.B || (c.ThreeWay && r.Base != r.A)) {
			t.Errorf("an unchanged region differs: %+v", r)
		}
	}
	if c.ThreeWay && gb.String() != base || ga.String() != a || gbb.String() != b {
		t.Fatalf("regions do not join into the texts:\nbase %q\nA    %q\nB    %q", gb.String(), ga.String(), gbb.String())
	}
	var rb, ra, rbb strings.Builder
	rows := c.Rows()
	for i, row := range rows {
		for _, side := range []struct {
			spans []Span
			out   *strings.Builder
		}{{row.Base, &rb}, {row.A, &ra}, {row.B, &rbb}} {
			var s strings.Builder
			for _, sp := range side.spans {
				s.WriteString(sp.Text)
			}
			side.out.WriteString(s.String())
			if i < len(rows)-1 && s.Len() > 0 && !strings.HasSuffix(s.String(), "\n") {
				t.Errorf("row %d ends inside a line: %q", i, s.String())
			}
		}
	}
	if c.ThreeWay && rb.String() != base || ra.String() != a || rbb.String() != b {
		t.Fatalf("rows do not join into the texts")
	}
}

func TestRowsAlignLinesAcrossTheVersions(t *testing.T) {
	base := "# T\n- a\n- b\n"
	a := "# T\n- a\n- x\n- y\n- b\n"
	b := "# T\n- a\n- b is B\n"
	rows := Compare(base, a, b).Rows()
	text := func(ss []Span) string {
		var s strings.Builder
		for _, sp := range ss {
			s.WriteString(sp.Text)
		}
		return s.String()
	}
	var got []string
	for _, r := range rows {
		got = append(got, text(r.Base)+"|"+text(r.A)+"|"+text(r.B))
	}
	want := []string{
		"# T\n|# T\n|# T\n",
		"- a\n|- a\n|- a\n",
		"|- x\n- y\n|",
		"- b\n|- b\n|- b is B\n",
	}
	if strings.Join(got, "¶") != strings.Join(want, "¶") {
		t.Fatalf("rows:\n%q\nwant:\n%q", got, want)
	}
	if rows[0].Changed() || !rows[2].Has(ChangedA) || !rows[3].Has(ChangedB) {
		t.Fatalf("row changes: %+v", rows)
	}
	// In A's pane, B's change is A's own unchanged text.
	for _, sp := range rows[3].A {
		if sp.Change != Unchanged {
			t.Fatalf("A's pane marks B's change: %+v", rows[3].A)
		}
	}
}

func TestSettleKeepsOneSideOfTheFirstAlternative(t *testing.T) {
	text := "intro\n" + MarkerA + "\nA one\n" + MarkerSep + "\nB one\nB two\n" + MarkerB + "\nmiddle\n" +
		MarkerA + "\nA last\n" + MarkerSep + "\nB last\n" + MarkerB
	got, ok := Settle(text, 'B')
	want := "intro\nB one\nB two\nmiddle\n" + MarkerA + "\nA last\n" + MarkerSep + "\nB last\n" + MarkerB
	if !ok || got != want {
		t.Fatalf("Settle B = %q, %v; want %q", got, ok, want)
	}
	if Unsettled(got) != 1 {
		t.Errorf("unsettled = %d, want 1", Unsettled(got))
	}
	got, ok = Settle(got, 'A')
	if want := "intro\nB one\nB two\nmiddle\nA last"; !ok || got != want {
		t.Fatalf("Settle A = %q, %v; want %q", got, ok, want)
	}
	if _, ok := Settle(got, 'A'); ok {
		t.Error("a text with no alternative left was settled")
	}
}
