package model

import "strings"

// CheckMergeRequest checks a MERGE request on its own, before any field
// is read: the strategy is known and decided by MERGE (rework is not), a
// rationale is given, a winner is named exactly when the strategy takes
// one, synthesis text comes with synthesis only, routing only with
// human_escalation or vote, and a proposal only with an escalation,
// keeping one unit or writing a synthesis. Its refusals are
// INVALID_REQUEST. The routing's own parts are the caller's to check.
func CheckMergeRequest(req MergeRequest) error {
	const op = OpMerge
	r := req.Resolution
	switch {
	case req.Strategy == Rework:
		return Errorf(op, CodeInvalidRequest, "send it back with `arbiter rework`",
			"rework is not decided by MERGE: a conflict is sent back to its authors with REWORK")
	case !req.Strategy.Valid():
		return Errorf(op, CodeInvalidRequest, "use one of the strategies `arbiter merge --help` lists", "unknown strategy %q", req.Strategy)
	case strings.TrimSpace(r.Rationale) == "":
		return Errorf(op, CodeInvalidRequest, "say why in the rationale", "a rationale is required")
	case req.Strategy.NeedsWinner() && (r.WinnerID == nil || *r.WinnerID == ""):
		return Errorf(op, CodeInvalidRequest, "name the winning unit", "%s needs a winner", req.Strategy)
	case !req.Strategy.TakesWinner() && r.WinnerID != nil && *r.WinnerID != "":
		return Errorf(op, CodeInvalidRequest, "leave the winner out", "%s takes no winner", req.Strategy)
	case req.Strategy == Synthesis && (r.Synthesis == nil || strings.TrimSpace(*r.Synthesis) == ""):
		return Errorf(op, CodeInvalidRequest, "give the synthesis text", "synthesis needs the new unit's text")
	case req.Strategy != Synthesis && r.Synthesis != nil && *r.Synthesis != "":
		return Errorf(op, CodeInvalidRequest, "use --strategy synthesis", "only synthesis takes synthesis text")
	case req.Routing != nil && !req.Strategy.Routed():
		return Errorf(op, CodeInvalidRequest, "leave out the owner, deadline and fallback",
			"only human_escalation and vote are routed to people; %s decides at once", req.Strategy)
	case req.Proposal != nil && req.Strategy != HumanEscalation:
		return Errorf(op, CodeInvalidRequest, "propose with human_escalation", "only an escalation carries a proposal")
	}
	if p := req.Proposal; p != nil {
		winner := p.WinnerID != nil && *p.WinnerID != ""
		synthesis := p.Synthesis != nil && strings.TrimSpace(*p.Synthesis) != ""
		if winner == synthesis {
			return Errorf(op, CodeInvalidRequest, "propose one unit to keep, or a synthesis",
				"a proposal keeps one unit or writes a synthesis: one of them")
		}
	}
	return nil
}

// MergeWinner is the unit a MERGE with strategy s keeps of contenders a
// and b, named being the winner the caller named ("" for none): a
// deterministic rule's pick, which a named winner must agree with; else
// the one named ("" when the strategy keeps none). A rule that ties, or
// picks another unit than the one named, is refused with MERGE_FAILED;
// pick is the rule's, so that the caller can say what else to do as the
// refusal's suggested action.
func MergeWinner(s Strategy, named string, a, b Contender) (winner string, pick Pick, refusal *Error) {
	if !s.Deterministic() {
		return named, pick, nil
	}
	pick = RulePick(s, a, b)
	switch {
	case pick.Tie:
		return "", pick, Errorf(OpMerge, CodeMergeFailed, "", "%s cannot decide: the units tie (%s)", s, pick.Why)
	case named != "" && named != pick.WinnerID:
		return "", pick, Errorf(OpMerge, CodeMergeFailed, "", "%s picks %s (%s), not %s", s, pick.WinnerID, pick.Why, named)
	}
	return pick.WinnerID, pick, nil
}
