package model

import (
	"reflect"
	"testing"
)

// lineage builds the lineage of start from edges "from>to", in order.
func lineage(start string, edges ...[2]string) *Lineage {
	l := NewLineage(start)
	for _, e := range edges {
		l.Reach(e[0], e[1])
	}
	return l
}

func edge(from, to string) [2]string { return [2]string{from, to} }

func TestNearestCommonAncestor(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b *Lineage
		want *Ancestor
	}{
		{"both supersede one unit", lineage("a", edge("a", "base")), lineage("b", edge("b", "base")),
			&Ancestor{UnitID: "base", PathA: []string{"a", "base"}, PathB: []string{"b", "base"}}},
		{"along chains of different lengths",
			lineage("a", edge("a", "a1"), edge("a1", "a2"), edge("a2", "base")),
			lineage("b", edge("b", "base")),
			&Ancestor{UnitID: "base", PathA: []string{"a", "a1", "a2", "base"}, PathB: []string{"b", "base"}}},
		{"the nearest of two shared ones",
			lineage("a", edge("a", "mid"), edge("mid", "root")),
			lineage("b", edge("b", "mid"), edge("mid", "root")),
			&Ancestor{UnitID: "mid", PathA: []string{"a", "mid"}, PathB: []string{"b", "mid"}}},
		{"a unit that supersedes two ancestors",
			lineage("a", edge("a", "x"), edge("a", "y")),
			lineage("b", edge("b", "y")),
			&Ancestor{UnitID: "y", PathA: []string{"a", "y"}, PathB: []string{"b", "y"}}},
		{"the fewest relations in all",
			lineage("a", edge("a", "near"), edge("a", "p"), edge("p", "q"), edge("q", "far")),
			lineage("b", edge("b", "near"), edge("near", "n2"), edge("n2", "n3"), edge("b", "far")),
			// near: 1+1; far: 3+1 — near wins on the sum alone.
			&Ancestor{UnitID: "near", PathA: []string{"a", "near"}, PathB: []string{"b", "near"}}},
		{"on equal sums the shorter longer path",
			lineage("a", edge("a", "x"), edge("a", "p"), edge("p", "y")),
			lineage("b", edge("b", "q"), edge("q", "r"), edge("r", "x"), edge("b", "s"), edge("s", "y")),
			// x: 1+3, y: 2+2.
			&Ancestor{UnitID: "y", PathA: []string{"a", "p", "y"}, PathB: []string{"b", "s", "y"}}},
		{"no shared unit", lineage("a", edge("a", "x")), lineage("b", edge("b", "y")), nil},
		{"nothing superseded", lineage("a"), lineage("b"), nil},
		{"one side supersedes the other: not a shared ancestor",
			lineage("a"), lineage("b", edge("b", "a")), nil},
		{"but what both reach beyond it is",
			lineage("a", edge("a", "base")), lineage("b", edge("b", "a"), edge("a", "base")),
			&Ancestor{UnitID: "base", PathA: []string{"a", "base"}, PathB: []string{"b", "a", "base"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := NearestCommonAncestor(tc.a, tc.b)
			if tc.want == nil {
				if ok {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if !ok || !reflect.DeepEqual(got, *tc.want) {
				t.Fatalf("got %+v (%v), want %+v", got, ok, *tc.want)
			}
		})
	}
}

func TestLineageKeepsTheFirstPathAroundACycle(t *testing.T) {
	l := lineage("a", edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "b"))
	if l.Len() != 3 {
		t.Fatalf("Len = %d, want 3", l.Len())
	}
	if got := l.Path("c"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("Path(c) = %q", got)
	}
	if n, _ := l.Steps("a"); n != 0 {
		t.Fatalf("the start is %d steps from itself", n)
	}
	if l.Reach("nowhere", "d") {
		t.Fatal("reached d from a unit never reached")
	}
	if l.Path("d") != nil {
		t.Fatal("a path to a unit never reached")
	}
}
