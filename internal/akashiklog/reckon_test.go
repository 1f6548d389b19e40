package akashiklog

import (
	"fmt"
	"slices"
	"testing"
)

func pairsOf(ps []Pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s/%s %v", p.A.ID, p.B.ID, p.Keys))
	}
	return out
}

func assertPairs(t *testing.T, s *State, want ...string) {
	t.Helper()
	if got := pairsOf(Reckon(s)); !slices.Equal(got, want) {
		t.Fatalf("pairs = %q, want %q", got, want)
	}
}

func TestReckonSameTopicDifferingPrimitiveConflicts(t *testing.T) {
	s := replayText(t,
		record("E2", 2, "bob", "R2", `{"topic":"db","engine":"postgres","port":5432,"ok":true}`),
		record("E1", 1, "ada", "R1", `{"topic":"db","engine":"sqlite","port":5432,"ok":null}`),
	)
	assertPairs(t, s, "R1/R2 [engine ok]")
}

func TestReckonIgnoresObjectAndArrayValues(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{"topic":"db","opts":{"wal":true},"tags":["a"]}`),
		record("E2", 2, "bob", "R2", `{"topic":"db","opts":{"wal":false},"tags":["b"]}`),
	)
	assertPairs(t, s)
}

func TestReckonIgnoresDifferentTopics(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{"topic":"db","engine":"sqlite"}`),
		record("E2", 2, "bob", "R2", `{"topic":"cache","engine":"redis"}`),
		record("E3", 3, "bob", "R3", `{"engine":"redis"}`),
		record("E4", 4, "bob", "R4", `{"engine":"memcached"}`),
	)
	assertPairs(t, s)
}

func TestReckonExcludesSupersededAndRetractedEntries(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{"topic":"db","engine":"sqlite"}`),
		record("E2", 2, "bob", "R2", `{"topic":"db","engine":"postgres"}`).with("supersedes", "R1"),
		record("E3", 3, "cy", "R3", `{"topic":"db","engine":"mysql"}`),
		statusChange("E4", 4, "cy", "R3", "retracted"),
		record("E5", 5, "dee", "R5", `{"topic":"db","engine":"duckdb"}`),
		statusChange("E6", 6, "dee", "R5", "draft"),
	)
	assertPairs(t, s, "R2/R5 [engine]")
}

func TestReckonComparesValuesNotSpelling(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{"topic":"t","n":1,"s":"A","k":"1","only_here":1}`),
		record("E2", 2, "bob", "R2", `{"topic":"t","n":1.0,"s":"\u0041","k":1}`),
	)
	assertPairs(t, s, "R1/R2 [k]")
}

func TestReckonOrdersPairsByReplayPosition(t *testing.T) {
	s := replayText(t,
		record("E1", 1, "ada", "R1", `{"topic":"b","v":1}`),
		record("E2", 2, "ada", "R2", `{"topic":"a","v":1}`),
		record("E3", 3, "ada", "R3", `{"topic":"b","v":2}`),
		record("E4", 4, "ada", "R4", `{"topic":"a","v":2}`),
		record("E5", 5, "ada", "R5", `{"topic":"b","v":3}`),
	)
	assertPairs(t, s, "R1/R3 [v]", "R1/R5 [v]", "R2/R4 [v]", "R3/R5 [v]")
}
