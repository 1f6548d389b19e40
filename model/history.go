package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// loggedEvent is what review writes in the payloads of a conflict's
// events, as far as a history needs it.
type loggedEvent struct {
	Request   json.RawMessage `json:"request"`
	Status    ConflictStatus  `json:"status"`
	NewUnitID *string         `json:"new_unit_id"`
	Route     *Route          `json:"route"`
	Outcome   string          `json:"outcome"`
	Fallback  Fallback        `json:"fallback"`
	Revision  string          `json:"revision"`
	WinnerID  *string         `json:"winner_id"` // a vote closed at its deadline
	Continued string          `json:"continued_by"`
	// REMIND
	Kind     string     `json:"kind"`
	Left     string     `json:"left"`
	Notified []string   `json:"notified_agents"`
	Deadline *time.Time `json:"deadline"`
	// REOPEN, REWORK
	Rationale string      `json:"rationale"`
	Undone    *Resolution `json:"undone"`
	// DETECT (the conflict itself)
	UnitA    string `json:"unit_a"`
	UnitB    string `json:"unit_b"`
	ReworkOf string `json:"rework_of"`
}

type loggedRequest struct {
	Strategy   Strategy        `json:"strategy"`
	Resolution MergeResolution `json:"resolution"`
	Routing    *Routing        `json:"routing"`
	Proposal   *Proposed       `json:"proposal"`
	Choice     string          `json:"choice"` // a ballot
	Rationale  string          `json:"rationale"`
	Deadline   string          `json:"deadline"`
	Fallback   Fallback        `json:"fallback"`
}

// EventSentence says in one sentence what an event of conflict c's history
// did, for people: "plan-juno escalated it to ops-maya (deadline
// 2026-11-25 09:00 UTC, then rework); proposes: a synthesis", "the
// deadline passed: the fallback dismissed it", "sweep reminded
// lead-kenji: 1h left". It reads the payloads review logs; an event it
// does not know reads as its operation and agent. The sentence holds
// field text (ids, rationales): make it safe before a terminal shows it.
func EventSentence(c Conflict, e Event) string {
	var p loggedEvent
	_ = json.Unmarshal(e.Payload, &p)
	var req loggedRequest
	_ = json.Unmarshal(p.Request, &req)
	who := e.AgentID
	side := func(id string) string {
		if s := c.Side(id); s != "" {
			return s + " (" + id + ")"
		}
		return id
	}
	routeText := func(r *Route) string {
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
	owner := func(r *Route) string {
		if r == nil || r.Owner == "" {
			return "any human operator"
		}
		return r.Owner
	}
	lapse := "the deadline passed"
	if p.Fallback != "" {
		lapse += " (fallback " + string(p.Fallback) + ")"
	}
	switch e.Operation {
	case OpDetect:
		s := fmt.Sprintf("%s opened it: %s contradicts %s", who, p.UnitB, p.UnitA)
		if p.ReworkOf != "" {
			s += fmt.Sprintf(", continuing %s, which was sent back for rework", p.ReworkOf)
		}
		return s
	case OpRework:
		if who == FallbackAgent {
			return lapse + ": it went back to its authors for rework" + routeText(p.Route)
		}
		return fmt.Sprintf("%s sent it back to its authors for rework%s: %s", who, routeText(p.Route), oneLineOf(req.Rationale))
	case OpRemind:
		whom := strings.Join(p.Notified, ", ")
		if whom == "" {
			whom = "nobody registered"
		}
		if p.Kind == SweepOverdue {
			return fmt.Sprintf("%s passed with nothing to execute: %s told it is overdue", "its deadline", whom)
		}
		return fmt.Sprintf("%s reminded: %s left", whom, p.Left)
	case OpReopen:
		if p.Undone != nil {
			return fmt.Sprintf("%s reopened it, taking back %s's %s decision: %s", who, p.Undone.ResolvedBy, p.Undone.Strategy, oneLineOf(p.Rationale))
		}
		return who + " reopened it"
	case OpVote:
		s := fmt.Sprintf("%s voted for %s", who, side(req.Choice))
		switch p.Status {
		case StatusResolved:
			s += ", which closed the vote"
		case StatusEscalated:
			s += "; the vote tied at its quorum and went to a human operator"
		}
		return s
	case OpMerge:
	default:
		return fmt.Sprintf("%s: %s", who, e.Operation)
	}
	if who == FallbackAgent {
		switch {
		case req.Strategy == HumanEscalation && p.Route != nil && p.Route.Deadline != nil:
			return fmt.Sprintf("%s: it went on to %s%s", lapse, owner(p.Route), routeText(p.Route))
		case req.Strategy == HumanEscalation:
			return fmt.Sprintf("%s but the fallback could not decide: it stays escalated for any human operator, without a deadline", lapse)
		case req.Strategy == Vote:
			return fmt.Sprintf("the vote's deadline passed: %s prevails by the majority of the ballots cast", side(deref(p.WinnerID, c)))
		case req.Strategy == Dismiss:
			return lapse + ": dismissed, both units stand"
		case req.Resolution.WinnerID != nil:
			return fmt.Sprintf("%s: %s picks %s", lapse, req.Strategy, side(*req.Resolution.WinnerID))
		}
		return lapse
	}
	switch req.Strategy {
	case HumanEscalation:
		s := fmt.Sprintf("%s escalated it to %s%s", who, owner(p.Route), routeText(p.Route))
		if pr := req.Proposal; pr != nil {
			prop := Proposal{By: who, WinnerID: pr.WinnerID, Synthesis: pr.Synthesis}
			s += "; proposes: " + prop.Describe(c)
		}
		return s
	case Vote:
		if p.Status == StatusPendingVote {
			return fmt.Sprintf("%s put it to a vote%s", who, routeText(p.Route))
		}
	case Rework:
		s := fmt.Sprintf("%s revised their unit with %s, which settles it", who, p.Revision)
		if p.Continued != "" {
			s = fmt.Sprintf("%s revised their unit with %s, which still contradicts the other: %s continues it", who, p.Revision, p.Continued)
		}
		return s
	case Dismiss:
		return fmt.Sprintf("%s dismissed it: both units stand", who)
	case Synthesis:
		unit := "a new unit"
		if p.NewUnitID != nil {
			unit = *p.NewUnitID
		}
		return fmt.Sprintf("%s decided it by synthesis: %s replaces both", who, unit)
	}
	if w := req.Resolution.WinnerID; w != nil {
		return fmt.Sprintf("%s decided it by %s: %s prevails", who, req.Strategy, side(*w))
	}
	return fmt.Sprintf("%s decided it by %s", who, req.Strategy)
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
