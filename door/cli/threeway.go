package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/internal/threeway"
	"arbiter/model"
	"arbiter/service/review"
)

// comparison compares a conflict's two units against their common
// ancestor, or with each other when they have none. Every text is
// cleaned first, so every region of the result is safe to print.
func comparison(ctx context.Context, svc review.Desk, d model.ConflictDetail) (threeway.Comparison, *model.Unit, error) {
	a, b := safetext.Block(d.A.Unit.Content), safetext.Block(d.B.Unit.Content)
	if d.Ancestor == nil {
		return threeway.CompareTwo(a, b), nil, nil
	}
	base, err := svc.Unit(ctx, d.Ancestor.UnitID)
	if err != nil {
		return threeway.Comparison{}, nil, err
	}
	return threeway.Compare(safetext.Block(base.Unit.Content), a, b), &base.Unit, nil
}

// printThreeWay prints the annotated comparison of show --three-way.
func printThreeWay(w io.Writer, d model.ConflictDetail, c threeway.Comparison, base *model.Unit) {
	id := clean(d.Conflict.ID)
	if base != nil {
		fmt.Fprintf(w, "%s: A and B against their common ancestor %s\n", id, clean(base.ID))
		fmt.Fprintf(w, "  base  %s by %s\n", clean(base.ID), clean(base.Source.AgentID))
		fmt.Fprintf(w, "  A     %s by %s, %s\n", clean(d.A.Unit.ID), clean(d.A.Unit.Source.AgentID), lineage(d.Ancestor.PathA))
		fmt.Fprintf(w, "  B     %s by %s, %s\n", clean(d.B.Unit.ID), clean(d.B.Unit.Source.AgentID), lineage(d.Ancestor.PathB))
		fmt.Fprintf(w, "  %s by A only, %s by B only, %s by both alike, %s\n",
			plural(c.Count(threeway.ChangedA), "change", "changes"), plural(c.Count(threeway.ChangedB), "change", "changes"),
			plural(c.Count(threeway.ChangedBoth), "change", "changes"), plural(c.Count(threeway.Disputed), "dispute", "disputes"))
		fmt.Fprintf(w, "  [base: …] is the ancestor's text, [A: …] and [B: …] each side's, [A+B: …] both sides'\n\n")
	} else {
		fmt.Fprintf(w, "%s: no common ancestor (the units revise no earlier unit in common); A and B compared\n", id)
		fmt.Fprintf(w, "  A  %s by %s\n", clean(d.A.Unit.ID), clean(d.A.Unit.Source.AgentID))
		fmt.Fprintf(w, "  B  %s by %s\n", clean(d.B.Unit.ID), clean(d.B.Unit.Source.AgentID))
		fmt.Fprintf(w, "  %s; [A: …] is text only A has there, [B: …] B's\n\n", plural(c.Count(threeway.Disputed), "difference", "differences"))
	}
	fmt.Fprintln(w, strings.TrimRight(safetext.Block(c.Annotated()), "\n"))
}

// printSuggestion prints show --suggest: the synthesis alone on w, ready
// for merge --synthesis-file -, and what is left to settle on notes.
func printSuggestion(w, notes io.Writer, d model.ConflictDetail, c threeway.Comparison) {
	text, unsettled := c.Suggest()
	fmt.Fprintln(w, strings.TrimRight(safetext.Block(text), "\n"))
	id := clean(d.Conflict.ID)
	if d.Ancestor == nil {
		fmt.Fprintf(notes, "arbiter: %s has no common ancestor: the suggestion keeps what A and B share\n", id)
	}
	if unsettled > 0 {
		fmt.Fprintf(notes, "arbiter: %s to settle: keep one side of each (or write your own) and delete the %s, %s and %s lines\n",
			plural(unsettled, "alternative", "alternatives"), threeway.MarkerA, threeway.MarkerSep, threeway.MarkerB)
	}
}

// lineage is "supersedes mem-003" or "supersedes mem-005, which supersedes mem-003".
func lineage(path []string) string {
	var b strings.Builder
	for i, id := range path[1:] {
		if i == 0 {
			b.WriteString("supersedes ")
		} else {
			b.WriteString(", which supersedes ")
		}
		b.WriteString(clean(id))
	}
	return b.String()
}

// unsettledNote warns, for a synthesis given to merge, that it still
// holds a suggestion's alternatives.
func unsettledNote(w io.Writer, text string) {
	if n := threeway.Unsettled(text); n > 0 {
		fmt.Fprintf(w, "arbiter: note: the synthesis still holds %s (%s … %s)\n",
			plural(n, "unsettled alternative", "unsettled alternatives"), threeway.MarkerA, threeway.MarkerB)
	}
}
