package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Change is one change to a conflict, as Concerned needs it to say who is
// told: the conflict before and after, and the people around it.
type Change struct {
	// Event is the notice's event (EventConflictResolved, ...).
	Event string
	// Before is the conflict as it was; After as the change leaves it.
	Before, After Conflict
	// Authors are the authors of its two units.
	Authors []string
	// Ballots are the ballots cast on it before the change.
	Ballots []Ballot
	// Voters are the agents eligible to vote on it; needed when Before or
	// After is a vote (pending_vote).
	Voters []string
	// Operators are the field's human operators; needed when Before or
	// After is escalated to nobody in particular.
	Operators []string
}

// NeedsVoters reports whether Concerned reads ch.Voters.
func (ch Change) NeedsVoters() bool {
	return ch.Before.Status == StatusPendingVote || ch.After.Status == StatusPendingVote
}

// NeedsOperators reports whether Concerned reads ch.Operators.
func (ch Change) NeedsOperators() bool {
	anyone := func(c Conflict) bool {
		return c.Status == StatusEscalated && (c.Route == nil || c.Route.Owner == "")
	}
	return anyone(ch.Before) || anyone(ch.After)
}

// Concerned is the one rule of who is told of a change to a conflict
// (docs/escalations.md, "Who is told"), sorted and each once:
//
//   - a reminder or an overdue notice: only who it waits for: its owner,
//     else every human operator; for a vote, the eligible voters who have
//     not voted; for a rework, its authors (once overdue, and whoever sent
//     it back);
//   - anything else: both authors; the owner it is routed to (every human
//     operator when escalated to nobody in particular); the owner it was
//     routed to before (or every human operator), when it moves or is
//     settled; the agent that
//     escalated it and the one whose proposal it carries; whoever sent it
//     back for rework; the eligible voters when it is or was a vote, and
//     whoever cast a ballot; on a reopening, whoever made the decision
//     taken back.
func Concerned(ch Change) []string {
	b, a := ch.Before, ch.After
	waiting := func(c Conflict) []string {
		if c.Route != nil && c.Route.Owner != "" {
			return []string{c.Route.Owner}
		}
		if c.Status == StatusEscalated {
			return ch.Operators
		}
		return nil
	}
	if ch.Event == EventConflictReminder || ch.Event == EventConflictOverdue {
		switch a.Status {
		case StatusPendingVote: // the voters who have not voted
			var out []string
			for _, v := range ch.Voters {
				if !slices.ContainsFunc(ch.Ballots, func(b Ballot) bool { return b.VoterID == v }) {
					out = append(out, v)
				}
			}
			return uniqueSorted(out)
		case StatusResolving: // the authors; once overdue, whoever sent it back too
			out := slices.Clone(ch.Authors)
			if ch.Event == EventConflictOverdue && a.Route != nil {
				out = append(out, a.Route.Owner)
			}
			return uniqueSorted(out)
		}
		return uniqueSorted(waiting(a))
	}
	out := append([]string{}, ch.Authors...)
	out = append(out, waiting(a)...)
	out = append(out, waiting(b)...)
	for _, c := range []Conflict{b, a} {
		if c.Escalation != nil {
			out = append(out, c.Escalation.By)
		}
		if c.Proposal != nil {
			out = append(out, c.Proposal.By)
		}
		if c.Rework != nil {
			out = append(out, c.Rework.By)
		}
	}
	if ch.NeedsVoters() {
		out = append(out, ch.Voters...)
	}
	for _, v := range ch.Ballots {
		out = append(out, v.VoterID)
	}
	if ch.Event == EventConflictReopened && b.Resolution != nil {
		out = append(out, b.Resolution.ResolvedBy)
	}
	out = uniqueSorted(out)
	for i := 0; i < len(out); i++ {
		if out[i] == FallbackAgent || out[i] == SweepAgent {
			out = append(out[:i], out[i+1:]...)
			i--
		}
	}
	return out
}

// ProposalVerdict says what became of the proposal p when the conflict was
// settled by r (synthesis is the text of r's synthesis unit, if any):
// "approved", "modified", "not taken", "carried out by the fallback" (a
// fallback's rule picked what was proposed) or "" when there is nothing
// to say.
func ProposalVerdict(p *Proposal, r *Resolution, synthesis string) string {
	if p == nil || r == nil {
		return ""
	}
	same := (p.WinnerID != nil && r.WinnerID != nil && *p.WinnerID == *r.WinnerID) ||
		(p.Synthesis != nil && r.SynthesisUnitID != nil && strings.TrimSpace(*p.Synthesis) == strings.TrimSpace(synthesis))
	switch {
	case r.ResolvedBy == FallbackAgent && same:
		return "carried out by the fallback"
	case r.Strategy == Dismiss || r.Strategy == Rework || r.ResolvedBy == FallbackAgent:
		return "not taken"
	case same:
		return "approved"
	}
	return "modified"
}

// DecisionNotice is what everyone concerned is told of a decision: who
// decided, by which strategy, what it did, what became of the proposal it
// carried, and why. what is the outcome ("mem-2 prevails, mem-1
// superseded"); verdict is ProposalVerdict's.
func DecisionNotice(c Conflict, r Resolution, what, verdict string, p *Proposal) string {
	s := fmt.Sprintf("%s resolved by %s (%s): %s.", c.ID, r.ResolvedBy, r.Strategy, what)
	if verdict != "" && p != nil {
		s += fmt.Sprintf(" %s's proposal (%s) was %s.", p.By, p.Describe(c), verdict)
	}
	if why := noticeLine(r.Rationale); why != "" {
		s += " Why: " + why
	}
	return s
}

// noticeLine is text on one line, whole: a notice carries all of it,
// and whoever shows it wraps it.
func noticeLine(s string) string {
	return OneLine(s)
}

// OneLine joins text written on several lines into one: the lines of a
// paragraph with a space, paragraphs (apart by a blank line) as
// sentences — a full stop after a paragraph that ends without one, so
// that "…may proceed" and "Approves plan-juno's proposal" do not run
// together.
func OneLine(s string) string {
	var out []string
	para := ""
	end := func() {
		if para == "" {
			return
		}
		if n := len(out); n > 0 && !strings.ContainsAny(out[n-1][len(out[n-1])-1:], ".!?:;…") {
			out[n-1] += "."
		}
		out, para = append(out, para), ""
	}
	for line := range strings.Lines(s) {
		words := strings.Join(strings.Fields(line), " ")
		switch {
		case words == "":
			end()
		case para == "":
			para = words
		default:
			para += " " + words
		}
	}
	end()
	return strings.Join(out, " ")
}

// NoLongerNeeded is what a notice adds for someone whose last notice of
// the conflict asked them to act and who is not asked again.
const NoLongerNeeded = " No action is needed from you any more."

// ReopenOwner is who a reopened conflict returns to: the owner of the
// last route it had (its decision events log where it went), else the
// policy's owner for its type, else nobody in particular (any human
// operator). why says which, for the screen and the notice.
func ReopenOwner(d ConflictDetail) (owner, why string) {
	if o := RoutedOwner(d.Events); o != "" {
		return o, "the owner its route had"
	}
	if o := d.Policy.Owners[d.Conflict.Type]; o != "" {
		return o, fmt.Sprintf("the policy's owner of %s conflicts", d.Conflict.Type)
	}
	return "", "no route or policy owner: any human operator"
}

// RoutedOwner is the owner of the last route a conflict had, as its
// decision events (events, oldest first) log where it went: "" when it
// was never routed to anyone in particular.
func RoutedOwner(events []Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Operation != OpMerge && e.Operation != OpRework {
			continue
		}
		var p struct {
			Route   *Route   `json:"route"`
			Timeout *Timeout `json:"timeout"`
		}
		if json.Unmarshal(e.Payload, &p) != nil {
			continue
		}
		if p.Route != nil && p.Route.Owner != "" {
			return p.Route.Owner
		}
		if p.Timeout != nil && p.Timeout.RoutedTo != "" {
			return p.Timeout.RoutedTo
		}
	}
	return ""
}
