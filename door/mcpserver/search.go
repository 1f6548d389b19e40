package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"arbiter/model"
)

// searchHit is one unit the search tool found: enough to choose it, with
// its text cut to searchText characters (the unit tool shows it whole).
type searchHit struct {
	ID         string           `json:"id"`
	Type       model.UnitType   `json:"type"`
	Mode       model.Mode       `json:"mode"`
	Status     model.UnitStatus `json:"status"`
	AgentID    string           `json:"agent_id" jsonschema:"who recorded it"`
	Epoch      int64            `json:"epoch"`
	Content    string           `json:"content" jsonschema:"its text, cut to 500 characters (the unit tool gives it whole)"`
	Truncated  bool             `json:"truncated,omitempty" jsonschema:"true when content was cut"`
	Confidence *float64         `json:"confidence,omitempty"`
}

const searchText = 500

// searchResult is the search tool's answer.
type searchResult struct {
	Units      []searchHit `json:"units" jsonschema:"in the order they were recorded"`
	More       bool        `json:"more" jsonschema:"true when the limit cut the list"`
	NextCursor string      `json:"next_cursor,omitempty" jsonschema:"when more is true: pass it back as cursor for the next page"`
}

type searchCursor struct {
	Seq int64 `json:"s"`
}

func (s *Server) search(ctx context.Context, in searchInput) (searchResult, string, error) {
	const op = model.OpAttune
	out := searchResult{Units: []searchHit{}}
	limit, err := limitOf(op, in.Limit, 20, 200)
	if err != nil {
		return out, "", err
	}
	var from searchCursor
	if err := decodeCursor(op, in.Cursor, &from); err != nil {
		return out, "", err
	}
	var words []string
	for _, w := range strings.Fields(in.Words) {
		if utf8.RuneCountInString(w) >= 2 {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return out, "", model.Errorf(op, model.CodeInvalidRequest, "give at least one word of two letters or more",
			"nothing to search for")
	}
	hits, err := s.svc.SearchUnits(ctx, words, from.Seq, limit+1)
	if err != nil {
		return out, "", err
	}
	if len(hits) > limit {
		hits, out.More = hits[:limit], true
		out.NextCursor = encodeCursor(searchCursor{Seq: hits[limit-1].Seq})
	}
	for _, h := range hits {
		u := h.Unit
		hit := searchHit{ID: u.ID, Type: u.Type, Mode: u.Mode, Status: u.Status, AgentID: u.Source.AgentID, Epoch: u.Epoch,
			Content: u.Content, Confidence: u.Confidence.Score}
		if utf8.RuneCountInString(hit.Content) > searchText {
			hit.Content, hit.Truncated = string([]rune(hit.Content)[:searchText]), true
		}
		out.Units = append(out.Units, hit)
	}
	var b strings.Builder
	if len(out.Units) == 0 {
		b.WriteString("no units found")
	} else {
		fmt.Fprintf(&b, "%s found", plural(len(out.Units), "unit", "units"))
		for i, u := range out.Units {
			if i == 10 {
				fmt.Fprintf(&b, "; and %d more in the structured content", len(out.Units)-10)
				break
			}
			fmt.Fprintf(&b, "; %s by %s, %s", q(u.ID), q(u.AgentID), u.Status)
		}
		b.WriteString(". Their text is in the structured content.")
	}
	if out.More {
		b.WriteString(" More beyond the limit: pass next_cursor back as cursor.")
	}
	return out, b.String(), nil
}
