package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/model"
	"arbiter/service/review/reviewtest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that validates structured content against the output schema
// even when isError is set must accept both a tool's result and its
// refusal. mcptest's client validates every call; this test makes every
// tool both succeed and refuse, and checks that neither shape could pass
// for the other.
func TestEveryToolsResultAndRefusalMatchItsOutputSchema(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	p := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana, Score: 0.9}, reviewtest.Side{By: bob, Score: 0.4})
	pv := f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob})
	if _, err := f.Svc.Merge(context.Background(), reviewtest.Lead1, model.MergeRequest{ConflictID: pv.Conflict, Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "the leads decide"}}); err != nil {
		t.Fatal(err)
	}
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{})

	calls := []struct {
		tool          string
		succeeds      map[string]any
		refused       map[string]any
		code          model.Code
		op            string
		readOnly      bool
		structuredKey string // a property only the result has
	}{
		{mcpserver.ToolRecord, finding("a claim", 0.7, p.A), map[string]any{"type": "finding", "content": "x",
			"intent": map[string]any{"purpose": "test"}}, model.CodeMissingConfidence, model.OpRecord, false, "unit_id"},
		{mcpserver.ToolConflicts, map[string]any{}, map[string]any{"status": []string{"detected"}, "limit": -5},
			model.CodeInvalidRequest, model.OpDetect, true, "conflicts"},
		{mcpserver.ToolConflict, map[string]any{"conflict_id": p.Conflict}, map[string]any{"conflict_id": "conflict-999"},
			model.CodeConflictNotFound, model.OpDetect, true, "rule_picks"},
		{mcpserver.ToolUnit, map[string]any{"unit_id": p.A}, map[string]any{"unit_id": "mem-999"},
			model.CodeUnitNotFound, model.OpAttune, true, "incoming"},
		{mcpserver.ToolVote, map[string]any{"conflict_id": pv.Conflict, "choice": "A", "rationale": "mine"},
			map[string]any{"conflict_id": p.Conflict, "choice": "A", "rationale": "not open"},
			model.CodeInvalidTransition, model.OpVote, false, "tally"},
		{mcpserver.ToolMerge, map[string]any{"conflict_id": p.Conflict, "strategy": "confidence_weighted",
			"resolution": map[string]any{"winner_id": "A", "rationale": "the higher confidence"}},
			map[string]any{"conflict_id": p.Conflict, "strategy": "last_write_wins", "resolution": map[string]any{"rationale": "again"}},
			model.CodeInvalidTransition, model.OpMerge, false, "side_effects"},
		{mcpserver.ToolInbox, map[string]any{}, map[string]any{"since_id": -1}, model.CodeInvalidRequest, model.OpAttune, true, "next_since_id"},
		{mcpserver.ToolSearch, map[string]any{"words": "claim"}, map[string]any{"words": "a"}, model.CodeInvalidRequest, model.OpAttune, true, "units"},
		{mcpserver.ToolDetect, map[string]any{"mode": "check", "units": []string{p.A}}, map[string]any{"mode": "check", "units": []string{"mem-999"}},
			model.CodeUnitNotFound, model.OpDetect, false, "units"},
	}
	tools := map[string]*mcp.Tool{}
	for tool, err := range c.Session.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	var covered []string
	for _, tc := range calls {
		t.Run(tc.tool, func(t *testing.T) {
			tool := tools[tc.tool]
			if tool == nil {
				t.Fatalf("no tool %s", tc.tool)
			}
			if tool.Annotations == nil || tool.Annotations.ReadOnlyHint != tc.readOnly {
				t.Errorf("annotations %+v, want readOnlyHint %v", tool.Annotations, tc.readOnly)
			}
			var schema struct {
				Type  string            `json:"type"`
				AnyOf []json.RawMessage `json:"anyOf"`
			}
			b, _ := json.Marshal(tool.OutputSchema)
			if err := json.Unmarshal(b, &schema); err != nil || schema.Type != "object" || len(schema.AnyOf) != 2 {
				t.Fatalf("output schema %s: want an object that is the result or the error object", b)
			}
			result, refusal := mcptest.Resolve(t, schema.AnyOf[0]), mcptest.Resolve(t, schema.AnyOf[1])

			ok := c.Call(tc.tool, tc.succeeds) // validated against the whole schema by the client
			if ok.IsError {
				t.Fatalf("refused: %s", mcptest.Text(ok))
			}
			if m, _ := ok.StructuredContent.(map[string]any); m[tc.structuredKey] == nil {
				t.Errorf("result lacks %q: %v", tc.structuredKey, ok.StructuredContent)
			}
			if err := mcptest.Validate(refusal, ok.StructuredContent); err == nil {
				t.Error("the result also passes for an error object")
			}

			no := c.Call(tc.tool, tc.refused)
			e := mcptest.Refusal(c, tc.tool, tc.refused)
			if e.Code != tc.code || e.Operation != tc.op || e.Message == "" {
				t.Errorf("refusal %+v, want %s of %s", e, tc.code, tc.op)
			}
			if err := mcptest.Validate(result, no.StructuredContent); err == nil {
				t.Error("the error object passes for a result: a client could not tell them apart")
			}
			if mcptest.Text(no) == "" {
				t.Error("a refusal without text")
			}
			covered = append(covered, tc.tool)
		})
	}
	for name := range tools {
		if !slices.Contains(covered, name) {
			t.Errorf("tool %s is not covered here", name)
		}
	}
}

// A tool's arguments that do not match its input schema are refused by
// the SDK before the rules see them, as a tool error without structured
// content (which any output schema allows).
func TestArgumentsOutsideTheInputSchemaAreAToolError(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{})
	res := c.Call(mcpserver.ToolRecord, map[string]any{"type": "rumour", "content": "x", "intent": map[string]any{"purpose": "p"}})
	if !res.IsError || res.StructuredContent != nil {
		t.Fatalf("an unknown unit type: %+v", res)
	}
	res = c.Call(mcpserver.ToolConflict, map[string]any{"conflict_id": "conflict-001", "sql": "DROP TABLE units"})
	if !res.IsError {
		t.Fatalf("an unknown argument was accepted: %s", mcptest.Text(res))
	}
}
