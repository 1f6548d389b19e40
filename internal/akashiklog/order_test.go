package akashiklog

import (
	"slices"
	"testing"
)

func TestOrderedSortsByLamportNotFileOrderOrSeq(t *testing.T) {
	log := mustRead(t, jsonl(t,
		record("E1", 3, "ada", "R1", `{}`),
		record("E2", 1, "ada", "R2", `{}`),
		record("E3", 2, "ada", "R3", `{}`),
	))
	if got := eventIDs(log.Ordered()); !slices.Equal(got, []string{"E2", "E3", "E1"}) {
		t.Fatalf("ordered = %v", got)
	}
	if got := eventIDs(log.Events); !slices.Equal(got, []string{"E1", "E2", "E3"}) {
		t.Fatalf("Ordered changed the log: %v", got)
	}
}

func TestOrderedPutsNullAgentFirstOnLamportTie(t *testing.T) {
	log := mustRead(t, jsonl(t,
		record("E1", 5, "bob", "R1", `{}`),
		record("E2", 5, nil, "R2", `{}`),
		record("E3", 5, "ada", "R3", `{}`),
		record("E4", 4, "zed", "R4", `{}`),
	))
	if got := eventIDs(log.Ordered()); !slices.Equal(got, []string{"E4", "E2", "E3", "E1"}) {
		t.Fatalf("ordered = %v", got)
	}
}

func TestOrderedBreaksAgentTiesByEventID(t *testing.T) {
	log := mustRead(t, jsonl(t,
		record("01HB", 7, "ada", "R1", `{}`),
		record("01HA", 7, "ada", "R2", `{}`),
		record("01HC", 7, nil, "R3", `{}`),
		record("01H9", 7, nil, "R4", `{}`),
	))
	if got := eventIDs(log.Ordered()); !slices.Equal(got, []string{"01H9", "01HC", "01HA", "01HB"}) {
		t.Fatalf("ordered = %v", got)
	}
}

func TestCompareStringsLikeJavaScript(t *testing.T) {
	// JavaScript compares UTF-16 code units: the surrogate pair of U+1F600
	// (0xD83D...) sorts before U+FF5E, although its UTF-8 bytes sort after.
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"ada", "bob", -1},
		{"ada", "ad", 1},
		{"same", "same", 0},
		{"x\U0001F600", "x\uFF5E", -1},
		{"é", "e\u0301", 1},
	} {
		if got := compareJS(tc.a, tc.b); got != tc.want {
			t.Errorf("compareJS(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
