package mcpserver_test

import (
	"path/filepath"
	"testing"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/decisions"
	"arbiter/model"
	"arbiter/service/review/reviewtest"
)

func TestAReadOnlyFieldServesTheReadToolsAndRefusesWritesWithReadOnly(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana, Score: 0.9}, reviewtest.Side{By: bob, Score: 0.4})
	before := reviewtest.Snap(t, f.Path)
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{ReadOnly: true})

	if d := mcptest.Result[model.ConflictDetail](c, mcpserver.ToolConflict, map[string]any{"conflict_id": p.Conflict}); d.Conflict.ID != p.Conflict {
		t.Fatalf("conflict on a read-only field: %+v", d.Conflict)
	}
	mcptest.Result[model.UnitDetail](c, mcpserver.ToolUnit, map[string]any{"unit_id": p.A})
	mcptest.Result[map[string]any](c, mcpserver.ToolConflicts, map[string]any{})
	mcptest.Result[map[string]any](c, mcpserver.ToolInbox, map[string]any{})

	for _, tc := range []struct {
		tool string
		args map[string]any
		op   string
	}{
		{mcpserver.ToolRecord, finding("a claim", 0.5, ""), model.OpRecord},
		{mcpserver.ToolMerge, map[string]any{"conflict_id": p.Conflict, "strategy": "last_write_wins",
			"resolution": map[string]any{"rationale": "later"}}, model.OpMerge},
		{mcpserver.ToolVote, map[string]any{"conflict_id": p.Conflict, "choice": "A", "rationale": "mine"}, model.OpVote},
	} {
		if e := mcptest.Refusal(c, tc.tool, tc.args); e.Code != model.CodeReadOnly || e.Operation != tc.op {
			t.Errorf("%s on a read-only field: %+v, want READ_ONLY of %s", tc.tool, e, tc.op)
		}
	}
	if diff := before.Diff(reviewtest.Snap(t, f.Path)); diff != "" {
		t.Errorf("the read-only field changed:\n%s", diff)
	}
}

func TestWithADecisionsFileMergeGoesToTheFileAsOnTheCommandLine(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana, Score: 0.9}, reviewtest.Side{By: bob, Score: 0.4})
	before := reviewtest.Snap(t, f.Path)
	out := filepath.Join(t.TempDir(), "decisions.jsonl")
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{ReadOnly: true, DecisionsOut: out})

	resp := mcptest.Result[model.MergeResponse](c, mcpserver.ToolMerge, map[string]any{"conflict_id": p.Conflict,
		"strategy": "confidence_weighted", "resolution": map[string]any{"winner_id": "A", "rationale": "the lab run"}})
	if resp.Offline == nil || resp.Offline.File != out || resp.Status != model.StatusResolved {
		t.Fatalf("merge with a decisions file: %+v, want it recorded offline, to resolve", resp)
	}
	file, err := decisions.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Messages) != 1 {
		t.Fatalf("%d messages in the decisions file, want 1", len(file.Messages))
	}
	m := file.Messages[0]
	if m.Envelope.AgentID != ana || m.Request.ConflictID != p.Conflict || *m.Request.Resolution.WinnerID != p.A {
		t.Errorf("the decision recorded: %+v", m)
	}
	if e := mcptest.Refusal(c, mcpserver.ToolRecord, finding("a claim", 0.5, "")); e.Code != model.CodeReadOnly {
		t.Errorf("record with a decisions file: %+v, want READ_ONLY (only decisions go to the file)", e)
	}
	if diff := before.Diff(reviewtest.Snap(t, f.Path)); diff != "" {
		t.Errorf("the read-only field changed:\n%s", diff)
	}
}
