package model

import (
	"fmt"
	"strings"
)

// ApproveRequest is a person's answer to an escalation's proposal:
// approve it as it stands, or modify it — keep another unit (WinnerID) or
// write the synthesis otherwise (Synthesis) — and carry it out as their
// own decision.
type ApproveRequest struct {
	ConflictID string `json:"conflict_id"`
	Rationale  string `json:"rationale"`
	// WinnerID replaces the proposal with keeping this unit (its id, or
	// A or B).
	WinnerID *string `json:"winner_id,omitempty"`
	// Synthesis replaces the proposal with this synthesis text.
	Synthesis *string `json:"synthesis,omitempty"`
	// ExpectedVersion is the conflict version the person read (0: the
	// version the proposal was read at).
	ExpectedVersion int64 `json:"expected_version,omitempty"`
}

// HonestStrategy is the strategy that says truly how a person keeps
// winner in the conflict of d: the first deterministic rule, in RulePicks'
// order, that picks winner and that Permit lets a use; otherwise
// authority (a person's own judgement), if Permit lets a use it. It is
// what approving a proposed winner, and any quick "keep A" decision,
// records. The error is Permit's refusal of authority, or INVALID_REQUEST
// for a winner that is not one of the conflict's units.
func HonestStrategy(a Agent, d ConflictDetail, winner string) (Strategy, *Error) {
	c := d.Conflict
	if _, ok := c.Other(winner); !ok {
		return "", Errorf(OpMerge, CodeInvalidRequest, "name "+c.UnitA+" or "+c.UnitB,
			"%q is not one of %s's units (%s, %s)", winner, c.ID, c.UnitA, c.UnitB)
	}
	picks := d.Picks
	if picks == nil {
		picks = RulePicks(d.A.Contender(), d.B.Contender())
	}
	for _, p := range picks {
		if !p.Tie && p.WinnerID == winner && Permit(a, d, p.Strategy) == nil {
			return p.Strategy, nil
		}
	}
	if err := Permit(a, d, Authority); err != nil {
		return "", err
	}
	return Authority, nil
}

// SideID reads a unit of c named as A, B or its id; "" if it is neither.
func SideID(c Conflict, s string) string {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "A":
		return c.UnitA
	case "B":
		return c.UnitB
	}
	if _, ok := c.Other(s); ok {
		return s
	}
	return ""
}

// Approval is the MERGE that carries out req, a's answer to the proposal
// of the conflict of d: a proposed (or substituted) winner becomes
// HonestStrategy's strategy with that winner, a synthesis becomes
// synthesis. The rationale says what was approved or modified. The
// request names the version of d (or req's) so that a proposal changed
// meanwhile is not approved unseen. Permit's verdict comes with the
// MERGE itself, except for the honest strategy's choice.
func Approval(a Agent, d ConflictDetail, req ApproveRequest) (MergeRequest, *Error) {
	const op = OpMerge
	c := d.Conflict
	out := MergeRequest{ConflictID: c.ID, ExpectedVersion: req.ExpectedVersion}
	if out.ExpectedVersion == 0 {
		out.ExpectedVersion = c.Version
	}
	rationale := strings.TrimSpace(req.Rationale)
	switch {
	case rationale == "":
		return out, Errorf(op, CodeInvalidRequest, "say why in the rationale", "a rationale is required")
	case req.WinnerID != nil && req.Synthesis != nil:
		return out, Errorf(op, CodeInvalidRequest, "give a winner or a synthesis", "a decision keeps one unit or writes a synthesis, not both")
	case req.Synthesis != nil && strings.TrimSpace(*req.Synthesis) == "":
		return out, Errorf(op, CodeInvalidRequest, "give the synthesis text", "the synthesis is empty")
	}
	p := c.Proposal
	winner, synthesis := "", ""
	switch {
	case req.WinnerID != nil:
		if winner = SideID(c, *req.WinnerID); winner == "" {
			return out, Errorf(op, CodeInvalidRequest, "name "+c.UnitA+" or "+c.UnitB+" (or A or B)",
				"%q is not one of %s's units (%s, %s)", *req.WinnerID, c.ID, c.UnitA, c.UnitB)
		}
	case req.Synthesis != nil:
		synthesis = *req.Synthesis
	case p == nil:
		return out, Errorf(op, CodeInvalidRequest, "name a winner or write a synthesis, or decide with `arbiter merge`",
			"%s carries no proposal to approve", c.ID)
	case p.WinnerID != nil:
		winner = *p.WinnerID
	case p.Synthesis != nil:
		synthesis = *p.Synthesis
	}
	if p != nil {
		rationale += "\n\n" + ApprovalNote(c, *p, winner, synthesis)
	}
	out.Resolution.Rationale = rationale
	if winner == "" {
		out.Strategy, out.Resolution.Synthesis = Synthesis, &synthesis
		return out, nil
	}
	s, err := HonestStrategy(a, d, winner)
	if err != nil {
		return out, err
	}
	out.Strategy, out.Resolution.WinnerID = s, &winner
	return out, nil
}

// ApprovalNote says whether a decision keeping winner, or writing
// synthesis, approves p or modifies it, in a sentence for its rationale.
func ApprovalNote(c Conflict, p Proposal, winner, synthesis string) string {
	proposed := p.Describe(c)
	switch {
	case winner != "" && p.WinnerID != nil && *p.WinnerID == winner:
		return fmt.Sprintf("Approves %s's proposal: %s.", p.By, proposed)
	case synthesis != "" && p.Synthesis != nil && *p.Synthesis == synthesis:
		return fmt.Sprintf("Approves %s's proposal: %s.", p.By, proposed)
	case winner != "":
		return fmt.Sprintf("Modifies %s's proposal (%s): keeps %s (%s) instead.", p.By, proposed, c.Side(winner), winner)
	case p.Synthesis != nil:
		return fmt.Sprintf("Modifies %s's proposal: an edited synthesis.", p.By)
	}
	return fmt.Sprintf("Modifies %s's proposal (%s): replaces both with a synthesis instead.", p.By, proposed)
}
