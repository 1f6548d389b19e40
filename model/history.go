package model

import (
	"fmt"
	"strings"
)

// EventSentence says in one sentence what an event of conflict c's history
// did, for people: "plan-juno escalated it to ops-maya (deadline
// 2026-11-25 09:00 UTC, then rework); proposes: a synthesis", "the
// deadline passed: the fallback dismissed it", "sweep reminded
// lead-kenji: 1h left". It reads the payloads review logs through their
// types (event.go); an event it does not know reads as its operation and
// agent, and one whose payload does not decode as what it could read of
// it, with the decoding error. The sentence holds field text (ids,
// rationales): make it safe before a terminal shows it.
func EventSentence(c Conflict, e Event) (string, error) {
	who := e.AgentID
	switch e.Operation {
	case OpDetect:
		p, err := DecodePayload[Conflict](e)
		s := fmt.Sprintf("%s opened it: %s contradicts %s", who, p.UnitB, p.UnitA)
		if p.ReworkOf != "" {
			s += fmt.Sprintf(", continuing %s, which was sent back for rework", p.ReworkOf)
		}
		return s, err
	case OpRework:
		p, err := DecodePayload[ReworkLog](e)
		if who == FallbackAgent {
			return lapseOf(p.Timeout) + ": it went back to its authors for rework" + routeText(p.Route), err
		}
		return fmt.Sprintf("%s sent it back to its authors for rework%s: %s", who, routeText(p.Route), oneLineOf(p.Request.Rationale)), err
	case OpRemind:
		p, err := DecodePayload[RemindLog](e)
		whom := strings.Join(p.NotifiedAgents, ", ")
		if whom == "" {
			whom = "nobody registered"
		}
		if p.Kind == SweepOverdue {
			return fmt.Sprintf("%s passed with nothing to execute: %s told it is overdue", "its deadline", whom), err
		}
		return fmt.Sprintf("%s reminded: %s left", whom, p.Left), err
	case OpReopen:
		p, err := DecodePayload[ReopenLog](e)
		if p.Undone.ResolvedBy != "" {
			return fmt.Sprintf("%s reopened it, taking back %s's %s decision: %s", who, p.Undone.ResolvedBy, p.Undone.Strategy, oneLineOf(p.Rationale)), err
		}
		return who + " reopened it", err
	case OpVote:
		p, err := DecodePayload[VoteLog](e)
		s := fmt.Sprintf("%s voted for %s", who, sideOf(c, p.Request.Choice))
		switch p.Status {
		case StatusResolved:
			s += ", which closed the vote"
		case StatusEscalated:
			s += "; the vote tied at its quorum and went to a human operator"
		}
		return s, err
	case OpJoin:
		p, err := DecodePayload[JoinLog](e)
		return joinSentence(who, p), err
	case OpFork:
		p, err := DecodePayload[ForkLog](e)
		return fmt.Sprintf("%s forked %s at epoch %d", who, p.Fork, p.BaseEpoch), err
	case OpMerge:
		p, err := DecodePayload[MergeLog](e)
		if who == FallbackAgent {
			return fallbackSentence(c, p), err
		}
		return mergeSentence(c, who, p), err
	}
	return fmt.Sprintf("%s: %s", who, e.Operation), nil
}

// fallbackSentence says what a MERGE a deadline executed did.
func fallbackSentence(c Conflict, p MergeLog) string {
	req, lapse := p.Request, lapseOf(p.Timeout)
	effect := req.Strategy.Row().Effect
	switch {
	case effect == ToPeople && p.Route != nil && p.Route.Deadline != nil:
		return fmt.Sprintf("%s: it went on to %s%s", lapse, ownerOf(p.Route), routeText(p.Route))
	case effect == ToPeople:
		return fmt.Sprintf("%s but the fallback could not decide: it stays escalated for any human operator, without a deadline", lapse)
	case effect == ToVote:
		var winner *string
		if p.Timeout != nil {
			winner = p.WinnerID
		}
		return fmt.Sprintf("the vote's deadline passed: %s prevails by the majority of the ballots cast", sideOf(c, deref(winner, c)))
	case effect == KeepBoth:
		return lapse + ": dismissed, both units stand"
	case req.Resolution.WinnerID != nil:
		return fmt.Sprintf("%s: %s picks %s", lapse, req.Strategy, sideOf(c, *req.Resolution.WinnerID))
	}
	return lapse
}

// mergeSentence says what a person's or an agent's MERGE did, by what its
// strategy does (its Effect).
func mergeSentence(c Conflict, who string, p MergeLog) string {
	req := p.Request
	switch req.Strategy.Row().Effect {
	case ToPeople:
		s := fmt.Sprintf("%s escalated it to %s%s", who, ownerOf(p.Route), routeText(p.Route))
		if pr := req.Proposal; pr != nil {
			prop := Proposal{By: who, WinnerID: pr.WinnerID, Synthesis: pr.Synthesis}
			s += "; proposes: " + prop.Describe(c)
		}
		return s
	case ToVote:
		if p.Status == StatusPendingVote {
			return fmt.Sprintf("%s put it to a vote%s", who, routeText(p.Route))
		}
	case Revised:
		s := fmt.Sprintf("%s revised their unit with %s, which settles it", who, p.Revision)
		if p.ContinuedBy != "" {
			s = fmt.Sprintf("%s revised their unit with %s, which still contradicts the other: %s continues it", who, p.Revision, p.ContinuedBy)
		}
		return s
	case KeepBoth:
		return fmt.Sprintf("%s dismissed it: both units stand", who)
	case NewUnit:
		unit := "a new unit"
		if p.NewUnitID != nil {
			unit = *p.NewUnitID
		}
		return fmt.Sprintf("%s decided it by synthesis: %s replaces both", who, unit)
	}
	if w := req.Resolution.WinnerID; w != nil {
		return fmt.Sprintf("%s decided it by %s: %s prevails", who, req.Strategy, sideOf(c, *w))
	}
	return fmt.Sprintf("%s decided it by %s", who, req.Strategy)
}

// lapseOf is "the deadline passed", with the fallback t names.
func lapseOf(t *Timeout) string {
	if t == nil || t.Fallback == "" {
		return "the deadline passed"
	}
	return "the deadline passed (fallback " + string(t.Fallback) + ")"
}

// sideOf is "A (id)" for a unit of c, else the id.
func sideOf(c Conflict, id string) string {
	if s := c.Side(id); s != "" {
		return s + " (" + id + ")"
	}
	return id
}

// routeText is a route's deadline and what follows it.
func routeText(r *Route) string {
	if r == nil {
		return ""
	}
	if r.Deadline == nil {
		return ", without a deadline"
	}
	then := "then nothing: overdue"
	if r.Fallback != "" {
		then = "then " + string(r.Fallback)
	}
	return fmt.Sprintf(" (deadline %s, in %s; %s)", r.Deadline.UTC().Format("2006-01-02 15:04 UTC"), ShortDuration(r.Length()), then)
}

func ownerOf(r *Route) string {
	if r == nil || r.Owner == "" {
		return "any human operator"
	}
	return r.Owner
}

// deref is the winner a vote's fallback names, or the conflict's.
func deref(p *string, c Conflict) string {
	if p != nil {
		return *p
	}
	if c.Resolution != nil && c.Resolution.WinnerID != nil {
		return *c.Resolution.WinnerID
	}
	return "the majority"
}

func oneLineOf(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:157]) + "..."
	}
	return s
}
