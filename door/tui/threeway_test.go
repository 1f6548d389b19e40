package tui

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"arbiter/internal/safetext"
	"arbiter/internal/threeway"
	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"

	"github.com/charmbracelet/x/ansi"
)

// The three-way view and the suggestion, as a person uses them: demo
// conflict-012's two units both revise the planner's estimate, mem-038.

// rowWith is the index of the frame's first line that holds text n
// times (once in each of n panes side by side), or -1.
func rowWith(frame, text string, n int) int {
	for i, l := range strings.Split(frame, "\n") {
		if strings.Count(l, text) == n {
			return i
		}
	}
	return -1
}

func TestThreeWayShowsTheAncestorAndWhatEachSideChangedInIt(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 150, 42)
	s.waitFor("▸ conflict-008")
	openByFilter(s, "conflict-012")
	s.waitFor("A mem-039", "B mem-040", keyOf(s.k.ThreeWay)+" three-way")
	s.press(s.k.ThreeWay)
	f := s.waitFor("Three-way: what A and B each changed in mem-038", "base mem-038", "by plan-juno · the unit both revise",
		"by res-iris · supersedes mem-038", "by data-wren · supersedes mem-038",
		"A 2 by A only · B 2 by B only · == 0 alike · !! 2 disputed")
	// One row of the three texts per line: the heading, then the disputed
	// sentence as each wrote it, the table row only A changed.
	for _, row := range []string{"## Load-test target for Keel", "!! Black Friday 2025 peaked at", "| soak | 0.5× target | 4 h |"} {
		if rowWith(f, row, 3) < 0 {
			t.Errorf("no line shows %q in all three panes:\n%s", row, f)
		}
	}
	for _, want := range []string{"about 3,000", "peaked at 4,200", "1,850 distinct", "A  | peak | 1× target | 30 min |",
		"A  | peak | 1× target | 45 min |", " B - source: Quarry's authorisations table"} {
		if !strings.Contains(f, want) {
			t.Errorf("the three-way view does not show %q:\n%s", want, f)
		}
	}
	footer := f[strings.LastIndex(f, "\n")+1:]
	if !strings.Contains(footer, keyOf(s.k.ThreeWay)+" three-way") || strings.Contains(footer, "lock scroll") ||
		strings.Contains(footer, "switch pane") {
		t.Errorf("the footer should name the three-way key and not the keys that do nothing here: %q", footer)
	}
	golden(t, "three-way", f)

	// The help lists the key on a conflict that has an ancestor.
	s.press(s.k.Help)
	s.waitFor("A conflict — where you are")
	if h := wholeHelp(s); !strings.Contains(h, keyOf(s.k.ThreeWay)+" three-way:") {
		t.Errorf("the help does not list the three-way key:\n%s", h)
	}
	s.keys("x") // closes the help
	s.waitFor("base mem-038")

	// The key again leaves the view; back goes to the queue.
	s.press(s.k.ThreeWay)
	f = s.waitGone("Three-way:")
	if !strings.Contains(f, "A mem-039") || strings.Contains(f, "base mem-038") {
		t.Errorf("leaving the three-way view should show both units again:\n%s", f)
	}
	s.press(s.k.ThreeWay)
	s.waitFor("base mem-038")
	s.press(s.k.Diff) // another view leaves it too
	s.waitGone("base mem-038")
	s.press(s.k.Back)
	s.waitFor("showing waiting for people")
}

func TestThreeWayPanesScrollTogether(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 150, 26)
	s.waitFor("▸ conflict-008")
	openByFilter(s, "conflict-012")
	s.press(s.k.ThreeWay)
	f := s.waitFor("base mem-038", "## Load-test target for Keel")
	if rowWith(f, "## Load-test target for Keel", 3) < 0 || strings.Contains(f, "auth-peak.js") {
		t.Fatalf("the panes should start at the top, too short for the end:\n%s", f)
	}
	s.press(s.k.Bottom)
	f = s.waitFor("auth-peak.js")
	k6 := rowWith(f, "`k6 run --env PROFILE=peak", 3)
	if rowWith(f, "scripts/auth-peak.js`", 3) != k6+1 || k6 < 0 || strings.Contains(f, "Load-test target") {
		t.Fatalf("the three panes should be at their end together:\n%s", f)
	}
	s.press(s.k.Up)
	s.settle()
	if f = s.Frame(); rowWith(f, "`k6 run --env PROFILE=peak", 3) != k6+1 {
		t.Errorf("one line up should move the three panes one line down the screen:\n%s", f)
	}
	s.press(s.k.Top)
	s.waitFor("Load-test target")

	// Narrow, the panes are tabs, and each shows the same rows.
	s.send(windowSize(100, 26))
	s.waitFor(" base mem-038   A mem-039   B mem-040   "+keyOf(s.k.NextPane)+" switches", "## Load-test target for Keel")
	s.press(s.k.Bottom)
	f = s.waitFor("auth-peak.js", "by plan-juno")
	at := rowWith(f, "scripts/auth-peak.js`", 1)
	s.press(s.k.NextPane)
	f = s.waitFor("by res-iris", "auth-peak.js")
	if got := rowWith(f, "scripts/auth-peak.js`", 1); got != at {
		t.Errorf("A's pane shows the end on line %d, the base's on %d:\n%s", got, at, f)
	}
	s.press(s.k.NextPane)
	s.waitFor("by data-wren", "auth-peak.js")
}

func TestThreeWayKeyWithoutAnAncestorShowsTheWordDiffAndSaysWhy(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 140, 40)
	s.waitFor("▸ conflict-008")
	s.keys("enter")
	f := s.waitFor("A mem-023", "B mem-026", keyOf(s.k.Diff)+" word diff")
	if strings.Contains(f, "three-way") {
		t.Errorf("the footer names the three-way key where it shows none:\n%s", f)
	}
	s.press(s.k.Help)
	s.waitFor("A conflict — where you are")
	if h := wholeHelp(s); strings.Contains(h, "three-way") || !strings.Contains(h, "word diff") {
		t.Errorf("the help names the three-way key over a conflict without an ancestor:\n%s", h)
	}
	s.keys("x")
	s.waitGone("where you are")
	s.press(s.k.ThreeWay)
	s.waitFor("conflict-008 has no common ancestor: A and B revise no earlier unit in common. Showing their word diff (w) instead.",
		"**0.004 %**")
}

func TestThreeWayWithoutColourMarksChangesInTheGutterAndUnderlinesThem(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 150, 42, func(o *Options) { o.NoColor = true })
	s.waitFor("▸ conflict-008")
	openByFilter(s, "conflict-012")
	s.press(s.k.ThreeWay)
	s.waitFor("base mem-038", "!! Black Friday")
	styled := s.Styled()
	panes := styled[:strings.LastIndex(styled, "\n")] // the footer is the help's own
	if regexp.MustCompile(`\x1b\[[0-9;]*[34]8;`).MatchString(panes) {
		t.Errorf("a colour was drawn without colour: %q", panes)
	}
	// "45" is A's change of the table cell: underlined, on a line marked A.
	underlined := regexp.MustCompile(`\x1b\[(4|[0-9;]*;4)(;[0-9;]*)?m4`)
	found := false
	for _, l := range strings.Split(panes, "\n") {
		if strings.Contains(ansi.Strip(l), "A  | peak | 1× target | 45 min |") {
			found = true
			if !underlined.MatchString(l) {
				t.Errorf("A's change of a table cell is not underlined: %q", l)
			}
		}
	}
	if !found {
		t.Errorf("no line marked A shows A's table cell:\n%s", ansi.Strip(panes))
	}
}

// TestLaidOutPanesHoldEveryWordAndAlign: at every width, the three panes
// have as many lines, none wider than the pane, and hold each text's
// words in order.
func TestLaidOutPanesHoldEveryWordAndAlign(t *testing.T) {
	base := "# Plan\n\nThe p99 is 40 ms in the lab, measured on a quiet Tuesday with warm caches and no retries.\n\n" +
		"| region | p99 |\n|---|---:|\n| eu-west | 40 ms |\n\n```sh\nbench --runs 10\n```\n" + strings.Repeat("word ", 60) + "\n"
	a := strings.Replace(strings.Replace(base, "40 ms in the lab", "55 ms in production", 1), "| eu-west | 40 ms |", "| eu-west | 55 ms |", 1) +
		"A supercalifragilisticexpialidocious_identifier_that_is_longer_than_any_pane line.\n"
	b := strings.Replace(strings.Replace(base, "40 ms in the lab", "38 ms in the lab", 1), "--runs 10", "--runs 30", 1)
	c := threeway.Compare(base, a, b)
	st := NewStyles(Theme{Dark: true})
	for _, w := range []int{10, 17, 30, 46, 80} {
		laid := layThree(c.Rows(), st, w)
		n := len(laid.panes[0].lines)
		for i, text := range []string{base, a, b} {
			p := laid.panes[i]
			if len(p.lines) != n || len(p.widths) != n {
				t.Fatalf("width %d: pane %d has %d lines, the base %d", w, i, len(p.lines), n)
			}
			var words []string
			for j, l := range p.lines {
				plain := ansi.Strip(l)
				if got := ansi.StringWidth(plain); got != p.widths[j] || got > w {
					t.Fatalf("width %d: pane %d line %d is %d cells, measured %d: %q", w, i, j, got, p.widths[j], plain)
				}
				if len(plain) > gutterW {
					words = append(words, plain[gutterW:])
				}
			}
			// A cut word is joined again: compare without spaces.
			if got, want := strings.Join(strings.Fields(strings.Join(words, "")), ""), strings.Join(strings.Fields(text), ""); got != want {
				t.Errorf("width %d: pane %d holds\n%s\nwant\n%s", w, i, got, want)
			}
		}
	}
}

// revision records a unit of content by by that supersedes the units
// revised, and contradicts contradicts if it is set.
func revision(t testing.TB, svc *review.Service, by, content, contradicts string, revised ...string) model.RecordResult {
	t.Helper()
	req := model.RecordRequest{Type: model.TypeFinding, Content: content, Intent: model.Intent{Purpose: "state the figure"},
		Confidence: model.Confidence{Score: model.Ptr(0.6), Reasoning: "as the test needs"}}
	for _, id := range revised {
		req.Relations = append(req.Relations, model.Relation{Type: model.RelSupersedes, TargetID: id})
	}
	if contradicts != "" {
		req.Relations = append(req.Relations, model.Relation{Type: model.RelContradicts, TargetID: contradicts})
		req.ConflictType = model.ConflictFactual
	}
	res, err := svc.Record(context.Background(), by, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// revisedConflict records base, A and B revising it, B contradicting A,
// and escalates the conflict so that it heads the queue.
func revisedConflict(t testing.TB, base, a, b string) (*rt.Field, string) {
	t.Helper()
	f := rt.New(t, rt.Policy())
	anc := revision(t, f.Svc, rt.Senior1, base, "")
	ua := revision(t, f.Svc, rt.Senior2, a, "", anc.UnitID)
	res := revision(t, f.Svc, rt.Standard, b, ua.UnitID, anc.UnitID)
	id := res.Conflicts[0].ID
	if _, err := f.Svc.Merge(context.Background(), rt.Senior1, model.MergeRequest{ConflictID: id,
		Strategy: model.HumanEscalation, Resolution: model.MergeResolution{Rationale: "needs a person"}}); err != nil {
		t.Fatal(err)
	}
	return f, id
}

// TestThreeWayKeepsHostileTextInert: control sequences in the ancestor
// and in both sides reach no terminal in the three-way view (columns and
// tabs) nor in the suggestion, and show as their visible stand-ins.
func TestThreeWayKeepsHostileTextInert(t *testing.T) {
	base := "# Plan " + attacks + "\n\nThe p99 is 40 ms " + attacks + "\n\n| region | p99 |\n|---|---:|\n| eu-west | 40 ms |\n"
	a := strings.Replace(base, "40 ms ", "55\x1b]52;c;ZXZpbA==\x07ms ", 1)
	b := strings.Replace(strings.Replace(base, "40 ms ", "38\u202ems ", 1), "| eu-west | 40 ms |", "| eu-west | 41\x1b[2Jms |", 1)
	f, id := revisedConflict(t, base, a, b)
	s := startGuarded(t, f.Svc, rt.Operator, 160, 45)
	step := func(name string, texts ...string) string {
		t.Helper()
		frame := s.waitFor(texts...)
		s.clean(name)
		return frame
	}
	s.k = s.m.keys
	step("the queue", "▸ "+id)
	s.keys("enter")
	step("the conflict", "A mem-", "Rules:")
	s.press(s.k.ThreeWay)
	step("the three-way view", "Three-way:", "base mem-", "# Plan red ␛[31mALERT", "55␛]52;c;ZXZpbA==␇ms", "38<U+202E>ms", "41␛[2Jms |")
	s.press(s.k.Bottom)
	s.press(s.k.Top)
	s.send(windowSize(100, 30))
	step("the three-way tabs", "switches", "# Plan red ␛[31mALERT")
	s.press(s.k.NextPane)
	step("A's tab", "55␛]52;c;ZXZpbA==␇ms")
	s.press(s.k.NextPane)
	s.press(s.k.Bottom)
	step("B's tab", "41␛[2Jms |")
	s.send(windowSize(160, 45))
	s.press(s.k.Decide)
	step("the decision form", "Decide "+id)
	for range 4 {
		s.press(s.k.Down)
	}
	step("synthesis", "▸ synthesis")
	s.press(s.k.Next)
	s.typeText("Both revised the plan.")
	s.press(s.k.Next)
	s.press(s.k.Suggest)
	step("the suggestion", "<<<<<<< A", ">>>>>>> B", "red ␛[31mALERT")
	s.clean("the end")
}

// TestSynthesisStartsFromTheSuggestionAndAsksBeforeWritingMarkers: the
// decision form's synthesis starts from the suggestion when asked (and
// asks before replacing typed text), counts the alternatives left as they
// are settled, asks once more before writing markers, and writes what
// was settled.
func TestSynthesisStartsFromTheSuggestionAndAsksBeforeWritingMarkers(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 150, 45)
	s.waitFor("▸ conflict-008")
	openByFilter(s, "conflict-012")
	s.press(s.k.Decide)
	s.waitFor("Decide conflict-012", "▍Strategy")
	pickStrategy(s, 4, "synthesis")
	f := s.waitFor(keyOf(s.k.Suggest) + " suggestion")
	if strings.Contains(f, "to settle") {
		t.Errorf("nothing is to settle before the suggestion is asked for:\n%s", f)
	}
	s.press(s.k.Next)
	s.typeText("The acquirer's count settles it.")
	s.press(s.k.Next)
	s.typeText("My draft")
	s.waitFor("My draft")

	// Typed text is replaced only on a second press; any other key keeps it.
	s.press(s.k.Suggest)
	s.waitFor("Replace what you wrote with the suggestion? Press " + keyOf(s.k.Suggest) + " again to replace it; any other key keeps your text.")
	s.typeText("!")
	f = s.waitFor("My draft!")
	if strings.Contains(f, "Replace what you wrote") || strings.Contains(f, "<<<<<<<") {
		t.Fatalf("another key should keep the text and drop the question:\n%s", f)
	}
	s.press(s.k.Suggest)
	s.waitFor("Replace what you wrote")
	s.press(s.k.Suggest)
	f = s.waitFor("<<<<<<< A", "=======", ">>>>>>> B", "⚑ 1 alternative to settle", "Started from the suggestion")
	if strings.Contains(f, "My draft") {
		t.Errorf("the suggestion should replace the draft:\n%s", f)
	}

	// Writing with the markers in takes a second press, clearly asked.
	s.press(s.k.Submit)
	f = s.waitFor("The synthesis still holds 1 alternative between <<<<<<< A and >>>>>>> B lines. Press "+
		keyOf(s.k.Submit)+" again", "to write it with them as they are, or settle them")
	if strings.Contains(f, "Write this decision?") {
		t.Fatalf("a synthesis with markers went to confirmation on the first press:\n%s", f)
	}
	s.press(s.k.Submit)
	s.waitFor("Write this decision?", "the synthesis is written with 1 alternative unsettled, markers and all")
	s.press(s.k.Cancel)
	s.waitGone("Write this decision?")

	// Settle it: keep B's sentence. The cursor is at the start of the
	// synthesis; the alternative starts on its third line.
	s.keys("down", "down")
	s.keys("ctrl+k", "ctrl+d") // <<<<<<< A
	s.keys("ctrl+k", "ctrl+d") // A's sentence
	s.waitFor("⚑ 1 alternative to settle")
	s.keys("ctrl+k", "ctrl+d")        // =======
	s.keys("end", "ctrl+d", "ctrl+k") // >>>>>>> B
	s.waitGone(">>>>>>>")
	f = s.waitFor("✓ no alternatives left")
	if strings.Contains(f, "<<<<<<<") || strings.Contains(f, "=======") {
		t.Fatalf("the markers are still there:\n%s", f)
	}
	s.press(s.k.Submit)
	f = s.waitFor("Write this decision?", "a new synthesis unit is created")
	if strings.Contains(f, "unsettled") {
		t.Errorf("a settled synthesis is confirmed as unsettled:\n%s", f)
	}
	s.press(s.k.Confirm)
	s.waitFor("Written.", "new unit: mem-")

	// The field holds the suggestion with B's sentence kept.
	ctx := context.Background()
	d := detailOf(t, svc, "conflict-012")
	r := d.Conflict.Resolution
	if r == nil || r.Strategy != model.Synthesis || r.SynthesisUnitID == nil {
		t.Fatalf("conflict-012 = %+v", d.Conflict)
	}
	u, err := svc.Unit(ctx, *r.SynthesisUnitID)
	if err != nil {
		t.Fatal(err)
	}
	baseUnit, err := svc.Unit(ctx, "mem-038")
	if err != nil {
		t.Fatal(err)
	}
	suggestion, n := threeway.Compare(safetext.Block(baseUnit.Unit.Content), safetext.Block(d.A.Unit.Content), safetext.Block(d.B.Unit.Content)).Suggest()
	lines := strings.Split(suggestion, "\n")
	at := -1
	for i, l := range lines {
		if l == threeway.MarkerA {
			at = i
		}
	}
	if n != 1 || at < 0 || lines[at+2] != threeway.MarkerSep || lines[at+4] != threeway.MarkerB {
		t.Fatalf("the demo's suggestion changed (%d alternatives):\n%s", n, suggestion)
	}
	want := strings.Join(append(append(lines[:at:at], lines[at+3]), lines[at+5:]...), "\n")
	if u.Unit.Content != strings.TrimSpace(want) {
		t.Errorf("the synthesis written is\n%s\nwant\n%s", u.Unit.Content, strings.TrimSpace(want))
	}
	if !strings.Contains(u.Unit.Content, "1,850 distinct") || !strings.Contains(u.Unit.Content, "| peak | 1× target | 45 min |") {
		t.Errorf("the synthesis should keep B's sentence and A's table cell:\n%s", u.Unit.Content)
	}
}
