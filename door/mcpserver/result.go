package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"arbiter/internal/safetext"
	"arbiter/model"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handler is a tool's work: its result and a short summary of it, or an
// error.
type handler[In, Out any] func(ctx context.Context, in In) (Out, string, error)

// addTool registers t with handler h. Its input schema is In's; its output
// schema accepts Out or the protocol's error object (see schema.go). A
// result is its structured content plus two text blocks: the summary, then
// the same JSON (for clients that do not read structured content). An
// error is a tool error whose structured content is the protocol's error
// object: a protocol refusal as the rules gave it, anything else as
// INTERNAL_ERROR of operation op.
func addTool[In, Out any](s *Server, t *mcp.Tool, op string, h handler[In, Out]) error {
	var err error
	if t.InputSchema, err = inputSchema[In](); err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	if t.OutputSchema, err = outputSchema[Out](); err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	mcp.AddTool(s.mcp, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		out, summary, err := h(ctx, in)
		if err != nil {
			return refusal(op, err), nil, nil
		}
		data, err := json.Marshal(out)
		if err != nil {
			return refusal(op, err), nil, nil
		}
		// The structured content goes out as it is. Given as the handler's
		// output instead, it would be decoded again and validated against
		// the output schema, a third of a conflict call's time, against a
		// schema inferred from the very type just encoded; the tests
		// validate every result as a client does.
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(data)}},
			StructuredContent: json.RawMessage(data),
		}, nil, nil
	})
	return nil
}

// refusal is err as a tool error carrying the protocol's error object.
func refusal(op string, err error) *mcp.CallToolResult {
	pe, ok := model.AsError(err)
	if !ok {
		pe = model.Errorf(op, model.CodeInternalError, "", "%s", err.Error())
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: "refused: " + safetext.Line(pe.Error())}},
		StructuredContent: pe,
	}
}

// Summaries name things from the field only by id, and quote every id:
// ids of imported units and conflicts come from other agents' logs, so
// they are data too, never words of ours.

// q is an id from the field, made one safe line, cut to 64 characters and
// quoted.
func q(id string) string {
	id = safetext.Line(id)
	if utf8.RuneCountInString(id) > 64 {
		id = string([]rune(id)[:63]) + "…"
	}
	return strconv.Quote(id)
}

// qs is ids quoted and joined with commas, at most the first max of them.
func qs(ids []string, max int) string {
	if len(ids) == 0 {
		return "none"
	}
	out := make([]string, 0, min(len(ids), max)+1)
	for i, id := range ids {
		if i == max {
			out = append(out, fmt.Sprintf("and %d more", len(ids)-max))
			break
		}
		out = append(out, q(id))
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
