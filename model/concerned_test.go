package model

import (
	"slices"
	"strings"
	"testing"
)

// Each row of the table "Who is told" (docs/escalations.md), as the rule
// says it; service/review/concerned_test.go checks the same rows on real fields.
func TestConcernedRowByRow(t *testing.T) {
	base := Conflict{ID: "c1", Status: StatusDetected}
	routed := func(s ConflictStatus, owner string) Conflict {
		c := base
		c.Status, c.Route = s, &Route{Owner: owner}
		return c
	}
	escalated := routed(StatusEscalated, "lead")
	escalated.Escalation = &Escalation{By: "esc"}
	escalated.Proposal = &Proposal{By: "prop"}
	resolved := escalated
	resolved.Status, resolved.Route, resolved.Resolution = StatusResolved, nil, &Resolution{ResolvedBy: "op"}
	vote := routed(StatusPendingVote, "")
	reworked := routed(StatusResolving, "op")
	reworked.Rework = &Escalation{By: "op"}
	authors := []string{"a", "b"}
	voters := []string{"v1", "v2", "v3"}
	ballots := []Ballot{{VoterID: "v1"}, {VoterID: "x"}}
	ops := []string{"op", "op2"}
	for _, tc := range []struct {
		name string
		ch   Change
		want []string
	}{
		{"a decision of a conflict nobody escalated", Change{Event: EventConflictResolved, Before: base, After: resolvedFrom(base)}, authors},
		{"an escalation to an owner", Change{Event: EventConflictEscalated, Before: base, After: escalated}, []string{"a", "b", "esc", "lead", "prop"}},
		{"an escalation to nobody in particular", Change{Event: EventConflictEscalated, Before: base, After: routed(StatusEscalated, "")}, []string{"a", "b", "op", "op2"}},
		{"routed on: the owner it leaves", Change{Event: EventConflictEscalated, Before: escalated, After: routed(StatusEscalated, "next")},
			[]string{"a", "b", "esc", "lead", "next", "prop"}},
		{"an escalation decided", Change{Event: EventConflictResolved, Before: escalated, After: resolved}, []string{"a", "b", "esc", "lead", "prop"}},
		{"a vote opened", Change{Event: EventVoteOpened, Before: base, After: vote}, []string{"a", "b", "v1", "v2", "v3"}},
		{"a vote closed", Change{Event: EventConflictResolved, Before: vote, After: resolvedFrom(vote)}, []string{"a", "b", "v1", "v2", "v3", "x"}},
		{"a rework", Change{Event: EventConflictRework, Before: escalated, After: withRework(escalated)}, []string{"a", "b", "esc", "lead", "op", "prop"}},
		{"a revision settles a rework", Change{Event: EventConflictResolved, Before: reworked, After: resolvedFrom(reworked)}, []string{"a", "b", "op"}},
		{"a reopening", Change{Event: EventConflictReopened, Before: resolved, After: routed(StatusEscalated, "lead")},
			[]string{"a", "b", "esc", "lead", "op", "prop"}},
		{"a reminder: the owner", Change{Event: EventConflictReminder, Before: escalated, After: escalated}, []string{"lead"}},
		{"a reminder: any human operator", Change{Event: EventConflictReminder, After: routed(StatusEscalated, "")}, ops},
		{"a reminder of a vote: who has not voted", Change{Event: EventConflictReminder, After: vote}, []string{"v2", "v3"}},
		{"a reminder of a rework: its authors", Change{Event: EventConflictReminder, After: reworked}, authors},
		{"an overdue rework: and who sent it back", Change{Event: EventConflictOverdue, After: reworked}, []string{"a", "b", "op"}},
	} {
		tc.ch.Authors, tc.ch.Voters, tc.ch.Ballots, tc.ch.Operators = authors, voters, nil, ops
		if tc.ch.Before.Status == StatusPendingVote || tc.ch.Event == EventConflictReminder {
			tc.ch.Ballots = ballots // ballots cast before the change
		}
		if got := Concerned(tc.ch); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// The field itself is never told.
	fb := resolvedFrom(base)
	fb.Escalation = &Escalation{By: FallbackAgent}
	if got := Concerned(Change{Event: EventConflictResolved, After: fb, Authors: authors}); !slices.Equal(got, authors) {
		t.Errorf("the fallback is told: %v", got)
	}
}

func resolvedFrom(c Conflict) Conflict {
	c.Status, c.Route, c.Resolution = StatusResolved, nil, &Resolution{ResolvedBy: "someone"}
	return c
}

func withRework(c Conflict) Conflict {
	c.Status, c.Route, c.Rework = StatusResolving, &Route{Owner: "op"}, &Escalation{By: "op"}
	return c
}

func TestProposalVerdict(t *testing.T) {
	a, b, text := "A", "B", "both hold"
	syn := "u3"
	for _, tc := range []struct {
		p    Proposal
		r    Resolution
		syn  string
		want string
	}{
		{Proposal{WinnerID: &a}, Resolution{Strategy: Authority, WinnerID: &a}, "", "approved"},
		{Proposal{WinnerID: &a}, Resolution{Strategy: Authority, WinnerID: &b}, "", "modified"},
		{Proposal{Synthesis: &text}, Resolution{Strategy: Synthesis, SynthesisUnitID: &syn}, " both hold ", "approved"},
		{Proposal{Synthesis: &text}, Resolution{Strategy: Synthesis, SynthesisUnitID: &syn}, "other", "modified"},
		{Proposal{WinnerID: &a}, Resolution{Strategy: Dismiss}, "", "not taken"},
		{Proposal{WinnerID: &a}, Resolution{Strategy: LastWriteWins, WinnerID: &a, ResolvedBy: FallbackAgent}, "", "carried out by the fallback"},
		{Proposal{WinnerID: &a}, Resolution{Strategy: LastWriteWins, WinnerID: &b, ResolvedBy: FallbackAgent}, "", "not taken"},
	} {
		if got := ProposalVerdict(&tc.p, &tc.r, tc.syn); got != tc.want {
			t.Errorf("%+v settled by %+v: %q, want %q", tc.p, tc.r, got, tc.want)
		}
	}
}

func TestOneLineEndsAParagraphBeforeTheNext(t *testing.T) {
	for in, want := range map[string]string{
		"The gate holds; Phase 0 may proceed\n\nApproves plan-juno's proposal: keep A (mem-023).": "The gate holds; Phase 0 may proceed. Approves plan-juno's proposal: keep A (mem-023).",
		"Wrapped in the middle\nof a sentence.":                                                   "Wrapped in the middle of a sentence.",
		"Ends well.\n  \n\nNext one":                                                              "Ends well. Next one",
		"  spaced   out  ":                                                                        "spaced out",
		"A question?\n\nAn answer":                                                                "A question? An answer",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// A decision's notice says its rationale as sentences: the note an
// approval adds after the person's words does not run into them.
func TestDecisionNoticeKeepsTheApprovalNoteASentenceOfItsOwn(t *testing.T) {
	c := Conflict{ID: "conflict-008"}
	r := Resolution{ResolvedBy: "ops-maya", Strategy: ConfidenceWeighted,
		Rationale: "The gate holds; Phase 0 may proceed\n\nApproves plan-juno's proposal: keep A (mem-023)."}
	got := DecisionNotice(c, r, "mem-023 prevails", "", nil)
	if !strings.Contains(got, "may proceed. Approves plan-juno's proposal") {
		t.Errorf("the notice runs two sentences together: %q", got)
	}
}
