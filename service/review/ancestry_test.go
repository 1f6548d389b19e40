package review_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
)

func supersedes(id string) model.Relation {
	return model.Relation{Type: model.RelSupersedes, TargetID: id}
}

func contradicts(id string) model.Relation {
	return model.Relation{Type: model.RelContradicts, TargetID: id, Description: "they revise it differently"}
}

// recordRel records a unit by senior2 with rels through RECORD and returns
// its id and the conflicts it opened.
func recordRel(t *testing.T, f *rt.Field, content string, rels ...model.Relation) (string, []string) {
	t.Helper()
	score := 0.7
	res, err := f.Svc.Record(context.Background(), senior2, model.RecordRequest{
		Type: model.TypeFinding, Content: content, Intent: model.Intent{Purpose: "revise the latency figure"},
		Confidence: model.Confidence{Score: &score, Reasoning: "measured"}, Relations: rels,
		ConflictType: model.ConflictFactual,
	})
	if err != nil {
		t.Fatalf("record %q: %v", content, err)
	}
	var cs []string
	for _, c := range res.Conflicts {
		cs = append(cs, c.ID)
	}
	return res.UnitID, cs
}

// oneConflict records a unit that opens exactly one conflict.
func oneConflict(t *testing.T, f *rt.Field, content string, rels ...model.Relation) (string, string) {
	t.Helper()
	id, cs := recordRel(t, f, content, rels...)
	if len(cs) != 1 {
		t.Fatalf("recording %s opened %d conflicts, want 1", id, len(cs))
	}
	return id, cs[0]
}

func ancestorOf(t *testing.T, f *rt.Field, conflict string) *model.Ancestor {
	t.Helper()
	anc, err := f.Svc.Ancestry(context.Background(), conflict)
	if err != nil {
		t.Fatalf("ancestry of %s: %v", conflict, err)
	}
	if d := f.Detail(t, conflict); !reflect.DeepEqual(d.Ancestor, anc) {
		t.Fatalf("Detail's ancestor %+v differs from Ancestry's %+v", d.Ancestor, anc)
	}
	return anc
}

func wantAncestor(t *testing.T, got *model.Ancestor, id string, pathA, pathB []string) {
	t.Helper()
	want := model.Ancestor{UnitID: id, PathA: pathA, PathB: pathB}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("ancestor = %+v, want %+v", got, want)
	}
}

func TestTwoRevisionsOfOneUnitShareItAsAncestor(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base, _ := recordRel(t, f, "p99 is 40 ms in the lab")
	a, _ := recordRel(t, f, "p99 is 55 ms in production", supersedes(base))
	b, c := oneConflict(t, f, "p99 is 38 ms in the lab", supersedes(base), contradicts(a))
	wantAncestor(t, ancestorOf(t, f, c), base, []string{a, base}, []string{b, base})
}

func TestAncestorAlongChainsOfDifferentLengths(t *testing.T) {
	f := rt.New(t, rt.Policy())
	base, _ := recordRel(t, f, "base")
	a1, _ := recordRel(t, f, "a1", supersedes(base))
	b1, _ := recordRel(t, f, "b1", supersedes(base))
	a2, _ := recordRel(t, f, "a2", supersedes(a1))
	a3, _ := recordRel(t, f, "a3", supersedes(a2))
	b2, c := oneConflict(t, f, "b2", supersedes(b1), contradicts(a3))
	wantAncestor(t, ancestorOf(t, f, c), base, []string{a3, a2, a1, base}, []string{b2, b1, base})
}

func TestTheNearestOfSeveralSharedAncestorsCounts(t *testing.T) {
	f := rt.New(t, rt.Policy())
	root, _ := recordRel(t, f, "root")
	mid, _ := recordRel(t, f, "mid", supersedes(root))
	a, _ := recordRel(t, f, "a", supersedes(mid))
	b, c := oneConflict(t, f, "b", supersedes(mid), contradicts(a))
	wantAncestor(t, ancestorOf(t, f, c), mid, []string{a, mid}, []string{b, mid})
}

func TestAUnitThatSupersedesTwoAncestors(t *testing.T) {
	f := rt.New(t, rt.Policy())
	x, _ := recordRel(t, f, "x")
	y, _ := recordRel(t, f, "y")
	a, _ := recordRel(t, f, "a", supersedes(x), supersedes(y))
	b, c := oneConflict(t, f, "b", supersedes(y), contradicts(a))
	wantAncestor(t, ancestorOf(t, f, c), y, []string{a, y}, []string{b, y})

	// Both revise both: equally near, and the one A reaches first (its
	// relations in id order) counts.
	b2, c2 := oneConflict(t, f, "b2", supersedes(y), supersedes(x), contradicts(a))
	wantAncestor(t, ancestorOf(t, f, c2), x, []string{a, x}, []string{b2, x})
}

func TestNoAncestorWithoutSharedSupersedes(t *testing.T) {
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	if anc := ancestorOf(t, f, p.Conflict); anc != nil {
		t.Fatalf("ancestor %+v of a plain contradiction", anc)
	}
	b, _ := json.Marshal(f.Detail(t, p.Conflict))
	if strings.Contains(string(b), `"ancestor"`) {
		t.Fatalf("the detail's JSON names an ancestor: %s", b)
	}

	// Revising different units is no shared ancestry either, and nor is
	// one side superseding the other.
	x, _ := recordRel(t, f, "x")
	y, _ := recordRel(t, f, "y")
	a, _ := recordRel(t, f, "a", supersedes(x))
	_, c := oneConflict(t, f, "b", supersedes(y), contradicts(a))
	if anc := ancestorOf(t, f, c); anc != nil {
		t.Fatalf("ancestor %+v of revisions of different units", anc)
	}
	_, c = oneConflict(t, f, "A revised", supersedes(p.A), contradicts(p.A))
	if anc := ancestorOf(t, f, c); anc != nil {
		t.Fatalf("ancestor %+v when B supersedes A itself", anc)
	}
}

func TestAncestryOfAnUnknownConflict(t *testing.T) {
	f := rt.New(t, rt.Policy())
	_, err := f.Svc.Ancestry(context.Background(), "conflict-404")
	if !model.HasCode(err, model.CodeConflictNotFound) {
		t.Fatalf("err = %v, want %s", err, model.CodeConflictNotFound)
	}
}

// insertUnits writes units with the given supersedes targets straight
// into the store, as another program may (RECORD only lets a unit
// supersede earlier ones, so it cannot make a cycle), and a conflict
// between the last two.
func insertUnits(t *testing.T, f *rt.Field, units [][2]string) string {
	t.Helper()
	var conflictID string
	err := f.Store.Write(context.Background(), func(tx store.Tx) error {
		score := 0.5
		for i, u := range units {
			var rels []model.Relation
			for _, target := range strings.Fields(u[1]) {
				rels = append(rels, supersedes(target))
			}
			if _, err := tx.UnitInsert(model.Unit{ID: u[0], Mode: model.ModeCommitted, Type: model.TypeFinding,
				Content: "imported " + u[0], Intent: model.Intent{Purpose: "import"},
				Confidence: model.Confidence{Score: &score, Reasoning: "imported"},
				Source:     model.Source{AgentID: senior2, AgentRole: "imported", Timestamp: time.Now()}, Relations: rels,
				Status: model.UnitActive, Epoch: int64(100 + i)}); err != nil {
				return err
			}
		}
		var err error
		conflictID, err = tx.ConflictInsert(model.Conflict{Type: model.ConflictFactual, Status: model.StatusDetected,
			UnitA: units[len(units)-2][0], UnitB: units[len(units)-1][0], DetectedBy: model.DetectedExplicit,
			DetectedAt: time.Now(), Epoch: 100 + int64(len(units))})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return conflictID
}

func TestAncestryWalksAroundCycles(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := insertUnits(t, f, [][2]string{
		{"u1", "u2"}, {"u2", "u1 u2"}, // a cycle, and a unit superseding itself
		{"a", "u1"}, {"b", "u2"},
	})
	// u1 is 1 + 2 away, u2 is 2 + 1: equally near, and A reaches u1 first.
	wantAncestor(t, ancestorOf(t, f, c), "u1", []string{"a", "u1"}, []string{"b", "u2", "u1"})
}

func TestAncestryIgnoresRelationsToUnitsNotInTheField(t *testing.T) {
	f := rt.New(t, rt.Policy())
	c := insertUnits(t, f, [][2]string{{"a", "ghost"}, {"b", "ghost"}})
	if anc := ancestorOf(t, f, c); anc != nil {
		t.Fatalf("ancestor %+v is not in the field", anc)
	}
}

func TestAncestryWalkIsBounded(t *testing.T) {
	f := rt.New(t, rt.Policy())
	// base ← c1 ← … ← c70 ← a, and b supersedes base directly: the
	// ancestor is 71 relations back from A, past the walk's bound.
	units := [][2]string{{"base", ""}}
	prev := "base"
	for i := 1; i <= 70; i++ {
		id := fmt.Sprintf("c%d", i)
		units = append(units, [2]string{id, prev})
		prev = id
	}
	units = append(units, [2]string{"a", prev}, [2]string{"b", "base"})
	c := insertUnits(t, f, units)
	if anc := ancestorOf(t, f, c); anc != nil {
		t.Fatalf("found %s %d relations back, past the bound", anc.UnitID, len(anc.PathA)-1)
	}

	// Within the bound, the same shape is found.
	c = insertUnits(t, f, [][2]string{{"a2", "c50"}, {"b2", "base"}})
	anc := ancestorOf(t, f, c)
	if anc == nil || anc.UnitID != "base" || len(anc.PathA) != 52 {
		t.Fatalf("ancestor = %+v, want base 51 relations back from A", anc)
	}
}
