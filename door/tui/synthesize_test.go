package tui

import (
	"context"
	"strings"
	"testing"

	"arbiter/internal/threeway"
	"arbiter/model"
	"arbiter/service/demo"
)

// From the queue to a written synthesis on conflict-012: the cursor to
// its row, synthesize, a side taken for each alternative, the rationale,
// submit and confirm — eight keys or fewer besides the rationale.
func TestSynthesisOfConflict012InEightKeys(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 120, 40)
	f := s.waitFor("▸ conflict-008")
	keys := rowKeys(t, f, "conflict-012")
	keys = append(keys, "=")
	s.keys(keys...)
	s.waitFor("Decide conflict-012", "▸ synthesis", "Started from the suggestion")
	keys = append(keys, "alt+b")
	s.keys("alt+b")
	s.waitFor("Took B's text: no alternative is left. Now say why.", "▍Rationale")
	s.typeText("Distinct authorisations are the load Keel sees; the gateway counts retries.")
	keys = append(keys, "ctrl+s", "y")
	s.keys("ctrl+s")
	s.waitFor("Write this decision?", "a new synthesis unit is created")
	s.keys("y")
	s.waitFor("Written.", "conflict-012 is now resolved")
	if len(keys) > 8 {
		t.Errorf("the synthesis took %d keys besides the rationale: %v", len(keys), keys)
	}
	d := detailOf(t, svc, "conflict-012")
	r := d.Conflict.Resolution
	if d.Conflict.Status != model.StatusResolved || r == nil || r.Strategy != model.Synthesis || r.SynthesisUnitID == nil {
		t.Fatalf("conflict-012 = %+v", d.Conflict)
	}
	u, err := svc.Unit(context.Background(), *r.SynthesisUnitID)
	if err != nil {
		t.Fatal(err)
	}
	text := u.Unit.Content
	if !strings.Contains(text, "1,850 distinct authorisations/s") || strings.Contains(text, "4,200") ||
		threeway.Unsettled(text) != 0 || strings.Contains(text, threeway.MarkerSep) {
		t.Errorf("the synthesis should hold B's side of the one alternative and no marker:\n%s", text)
	}
}

// ctrl+y on the strategy list chooses the synthesis and starts it from
// the suggestion; take A settles an alternative there too.
func TestSuggestWorksAnywhereInTheForm(t *testing.T) {
	svc := openService(t, demoField(t), false)
	s := start(t, svc, demo.Operator, 120, 40)
	s.waitFor("▸ conflict-008")
	openByFilter(s, "conflict-012")
	s.waitFor("A mem-039")
	s.keys("d")
	s.waitFor("Decide conflict-012", "▍Strategy")
	s.keys("ctrl+y")
	s.waitFor("▸ synthesis", "Started from the suggestion", "1 alternative to settle")
	s.keys("alt+a")
	f := s.waitFor("Took A's text", "no alternatives left")
	if !strings.Contains(f, "4,200 authorisations/s") || strings.Contains(f, "1,850") {
		t.Errorf("take A should keep A's side:\n%s", f)
	}
}

// rowKeys are the keys that move the queue's cursor to the row of id.
func rowKeys(t *testing.T, frame, id string) []string {
	t.Helper()
	at, want := -1, -1
	for i, line := range strings.Split(frame, "\n") {
		if strings.Contains(line, "▸ conflict-") {
			at = i
		}
		if strings.Contains(line, " "+id+" ") {
			want = i
		}
	}
	if at < 0 || want < 0 {
		t.Fatalf("no cursor or no %s in the queue:\n%s", id, frame)
	}
	var out []string
	for ; at < want; at++ {
		out = append(out, "j")
	}
	for ; at > want; at-- {
		out = append(out, "k")
	}
	return out
}
