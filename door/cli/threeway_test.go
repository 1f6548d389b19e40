package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/field"
)

// revisionPayload is a RECORD payload whose unit supersedes the units in
// supersedes and, if contradicts is set, contradicts it.
func revisionPayload(content, contradicts string, supersedes ...string) string {
	rels := []any{}
	for _, id := range supersedes {
		rels = append(rels, map[string]any{"type": "supersedes", "target_id": id})
	}
	if contradicts != "" {
		rels = append(rels, map[string]any{"type": "contradicts", "target_id": contradicts, "description": "the revisions disagree"})
	}
	b, _ := json.Marshal(map[string]any{
		"mode": "committed", "type": "finding", "content": content,
		"intent":     map[string]any{"purpose": "revise the latency figures"},
		"confidence": map[string]any{"score": 0.7, "reasoning": "measured", "evidence": []string{}, "assumptions": []string{}},
		"relations":  rels,
	})
	return string(b)
}

const (
	latencyBase = "# Latency\n\n- p99 is 40 ms in the lab\n- runs: 10\n\n| region | p99 |\n|---|---|\n| eu | 40 ms |\n"
	latencyA    = "# Latency\n\n- p99 is 55 ms in production\n- runs: 10\n\n| region | p99 |\n|---|---|\n| eu | 52 ms |\n"
	latencyB    = "# Latency\n\n- p99 is 38 ms in the lab\n- runs: 12\n\n| region | p99 |\n|---|---|\n| eu | 40 ms |\n"
)

// revisedField is newField plus mem-001 (the base, by ana), mem-002 (A,
// by ana) and mem-003 (B, by bob), both superseding mem-001, B
// contradicting A: conflict-001.
func revisedField(t *testing.T, base, a, b string) string {
	t.Helper()
	db := newField(t)
	record(t, db, "ana", revisionPayload(base, ""))
	record(t, db, "ana", revisionPayload(a, "", "mem-001"))
	record(t, db, "bob", revisionPayload(b, "mem-002", "mem-001"))
	return db
}

func TestShowNamesTheCommonAncestor(t *testing.T) {
	db := revisedField(t, latencyBase, latencyA, latencyB)
	d := showJSON(t, db, "conflict-001")
	want := model.Ancestor{UnitID: "mem-001", PathA: []string{"mem-002", "mem-001"}, PathB: []string{"mem-003", "mem-001"}}
	if d.Ancestor == nil || d.Ancestor.UnitID != want.UnitID || strings.Join(d.Ancestor.PathA, " ") != "mem-002 mem-001" ||
		strings.Join(d.Ancestor.PathB, " ") != "mem-003 mem-001" {
		t.Fatalf("show --json ancestor = %+v, want %+v", d.Ancestor, want)
	}
	out := ok(t, "--db", db, "show", "conflict-001")
	if !strings.Contains(out, "\nancestor   mem-001: A supersedes mem-001, B supersedes mem-001 (show --three-way compares them)\n") {
		t.Fatalf("show does not name the ancestor:\n%s", out)
	}

	plain := fieldWithConflict(t)
	if raw := ok(t, "--db", plain, "show", "conflict-001", "--json"); strings.Contains(raw, `"ancestor"`) {
		t.Fatalf("show --json names an ancestor where there is none:\n%s", raw)
	}
	if out := ok(t, "--db", plain, "show", "conflict-001"); strings.Contains(out, "ancestor") {
		t.Fatalf("show names an ancestor where there is none:\n%s", out)
	}
}

func TestShowThreeWayMarksEachSidesChanges(t *testing.T) {
	db := revisedField(t, latencyBase, latencyA, latencyB)
	got := ok(t, "--db", db, "show", "conflict-001", "--three-way")
	want := `conflict-001: A and B against their common ancestor mem-001
  base  mem-001 by ana
  A     mem-002 by ana, supersedes mem-001
  B     mem-003 by bob, supersedes mem-001
  2 changes by A only, 1 change by B only, 0 changes by both alike, 1 dispute
  [base: …] is the ancestor's text, [A: …] and [B: …] each side's, [A+B: …] both sides'

# Latency

- p99 is [base: 40][A: 55][B: 38] ms in [base: the lab][A: production]
- runs: [base: 10][B: 12]

| region | p99 |
|---|---|
| eu | [base: 40][A: 52] ms |
`
	if got != want {
		t.Fatalf("show --three-way:\n%s\nwant:\n%s", got, want)
	}
	r := arbiter(t, "--db", db, "show", "conflict-001", "--three-way", "--json")
	wantExit(t, r, exitUsage)
}

func TestSuggestionGoesBackThroughMerge(t *testing.T) {
	// B settles nothing A changed differently: the suggestion is whole.
	b := strings.Replace(latencyBase, "- runs: 10", "- runs: 12", 1)
	db := revisedField(t, latencyBase, latencyA, b)
	r := arbiter(t, "--db", db, "show", "conflict-001", "--suggest")
	wantExit(t, r, 0)
	want := strings.Replace(latencyA, "- runs: 10", "- runs: 12", 1)
	if r.stdout != want || r.stderr != "" {
		t.Fatalf("show --suggest:\n%s\nstderr %q\nwant:\n%s", r.stdout, r.stderr, want)
	}
	m := call(t, nil, r.stdout, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "synthesis",
		"--synthesis-file", "-", "--rationale", "both revisions hold", "--json")
	wantExit(t, m, 0)
	var resp model.MergeResponse
	if err := json.Unmarshal([]byte(m.stdout), &resp); err != nil || resp.SideEffects.NewUnitID == nil {
		t.Fatalf("merge --json: %v\n%s", err, m.stdout)
	}
	if got := unitContent(t, db, *resp.SideEffects.NewUnitID); got+"\n" != want {
		t.Fatalf("the synthesis unit holds %q, want %q", got, want)
	}
}

func TestSuggestionWithAlternativesIsAcceptedWithANote(t *testing.T) {
	db := revisedField(t, latencyBase, latencyA, latencyB)
	r := arbiter(t, "--db", db, "show", "conflict-001", "--suggest")
	wantExit(t, r, 0)
	want := "# Latency\n\n<<<<<<< A\n- p99 is 55 ms in production\n=======\n- p99 is 38 ms in the lab\n>>>>>>> B\n" +
		"- runs: 12\n\n| region | p99 |\n|---|---|\n| eu | 52 ms |\n"
	if r.stdout != want {
		t.Fatalf("show --suggest:\n%s\nwant:\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "1 alternative to settle") {
		t.Fatalf("stderr %q does not count the alternatives", r.stderr)
	}
	m := call(t, nil, r.stdout, "--db", db, "--as", "op", "merge", "conflict-001", "--strategy", "synthesis",
		"--synthesis-file", "-", "--rationale", "settle later")
	wantExit(t, m, 0)
	if !strings.Contains(m.stderr, "still holds 1 unsettled alternative") {
		t.Fatalf("merge stderr %q has no note of the markers", m.stderr)
	}
}

func TestWithoutAnAncestorShowComparesTheTwo(t *testing.T) {
	db := newField(t)
	record(t, db, "ana", revisionPayload("p99 is 40 ms in the lab.", ""))
	record(t, db, "bob", revisionPayload("p99 is 90 ms in production.", "mem-001"))
	got := ok(t, "--db", db, "show", "conflict-001", "--three-way")
	want := `conflict-001: no common ancestor (the units revise no earlier unit in common); A and B compared
  A  mem-001 by ana
  B  mem-002 by bob
  2 differences; [A: …] is text only A has there, [B: …] B's

p99 is [A: 40][B: 90] ms in [A: the lab][B: production].
`
	if got != want {
		t.Fatalf("show --three-way:\n%s\nwant:\n%s", got, want)
	}
	r := arbiter(t, "--db", db, "show", "conflict-001", "--suggest")
	wantExit(t, r, 0)
	if want := "<<<<<<< A\np99 is 40 ms in the lab.\n=======\np99 is 90 ms in production.\n>>>>>>> B\n"; r.stdout != want {
		t.Fatalf("show --suggest:\n%s\nwant:\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "no common ancestor") {
		t.Fatalf("stderr %q does not say there is no ancestor", r.stderr)
	}
}

func TestHostileTextInAnyVersionIsInertInTheThreeWayViews(t *testing.T) {
	hostile := "# Latency " + attacks + "\n\n- p99 is 40 ms " + attacks + "\n| eu | " + attacks + " |\n"
	for _, tc := range []struct{ name, base, a, b string }{
		{"base", hostile, latencyA, latencyB},
		{"A", latencyBase, hostile, latencyB},
		{"B", latencyBase, latencyA, hostile},
		{"all three", hostile, hostile + "more\n", "- " + hostile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := revisedField(t, tc.base, tc.a, tc.b)
			for _, flag := range []string{"--three-way", "--suggest"} {
				r := arbiter(t, "--db", db, "show", "conflict-001", flag)
				wantExit(t, r, 0)
				inert(t, flag+" stdout", r.stdout)
				inert(t, flag+" stderr", r.stderr)
				if strings.IndexByte(r.stdout, 0x1b) >= 0 {
					t.Fatalf("%s: an ESC byte reached stdout", flag)
				}
				if flag == "--three-way" && !strings.Contains(r.stdout, "␛[31mALERT") {
					t.Fatalf("%s does not show the attack inert:\n%s", flag, r.stdout)
				}
			}
		})
	}
}

// unitContent reads a unit's content straight from the field.
func unitContent(t *testing.T, db, id string) string {
	t.Helper()
	st, err := field.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var u model.Unit
	if err := st.Read(context.Background(), func(tx store.Tx) (err error) { u, err = tx.Unit(id); return err }); err != nil {
		t.Fatal(err)
	}
	return u.Content
}
