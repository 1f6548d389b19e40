package model

import (
	"fmt"
	"strings"
	"time"
)

// Fallback is what executes when a conflict waiting for people passes its
// deadline: dismiss it, send it back for rework, let a deterministic rule
// decide, or route it to another person with a fresh deadline
// ("escalate:ID").
type Fallback string

const (
	FallbackDismiss Fallback = "dismiss"
	FallbackRework  Fallback = "rework"
	// FallbackEscalatePrefix starts "escalate:ID".
	FallbackEscalatePrefix = "escalate:"
)

// ParseFallback reads a fallback as people write it; "" is none.
func ParseFallback(s string) (Fallback, error) {
	f := Fallback(strings.TrimSpace(s))
	switch {
	case f == "", f == FallbackDismiss, f == FallbackRework:
		return f, nil
	case Strategy(f).Deterministic():
		return f, nil
	case strings.HasPrefix(string(f), FallbackEscalatePrefix) && f.EscalateTo() != "":
		return f, nil
	}
	rules := []string{string(FallbackDismiss), string(FallbackRework)}
	for _, r := range DeterministicStrategies() {
		rules = append(rules, string(r))
	}
	return "", fmt.Errorf("unknown fallback %q: use %s or escalate:ID", s, strings.Join(rules, ", "))
}

// EscalateTo is the person an "escalate:ID" fallback routes to, "" for
// other fallbacks.
func (f Fallback) EscalateTo() string {
	id, ok := strings.CutPrefix(string(f), FallbackEscalatePrefix)
	if !ok {
		return ""
	}
	return strings.TrimSpace(id)
}

// Rule is the deterministic strategy a fallback applies, "" if it applies
// none.
func (f Fallback) Rule() Strategy {
	if s := Strategy(f); s.Deterministic() {
		return s
	}
	return ""
}

// Route is who a conflict waiting for people is routed to and until
// when. It is set while the conflict is escalated, put to a vote or sent
// back for rework.
type Route struct {
	// Owner is the person it is routed to; "" for any human operator.
	Owner string `json:"owner,omitempty"`
	// Since is when it was routed: the deadline's clock started then.
	Since time.Time `json:"since"`
	// Deadline is when Fallback executes; nil for none.
	Deadline *time.Time `json:"deadline,omitempty"`
	// Fallback is what executes at the deadline; "" for nothing (the
	// conflict is overdue until a person answers).
	Fallback Fallback `json:"fallback,omitempty"`
	// Reminded counts the reminders sent: 1 once a fifth of the time is
	// left, 2 once the deadline passed without a fallback.
	Reminded int `json:"reminded,omitempty"`
}

// RemindAt is when a fifth of the route's time is left: the owner is
// reminded then.
func (r Route) RemindAt() *time.Time {
	if r.Deadline == nil {
		return nil
	}
	at := r.Since.Add(r.Deadline.Sub(r.Since) * 4 / 5)
	return &at
}

// Left is how long the route has until its deadline at now (negative once
// overdue), and whether it has a deadline at all.
func (r Route) Left(now time.Time) (time.Duration, bool) {
	if r.Deadline == nil {
		return 0, false
	}
	return r.Deadline.Sub(now), true
}

// Urgent reports whether less than a fifth of the route's time is left at
// now (an overdue route is urgent).
func (r Route) Urgent(now time.Time) bool {
	at := r.RemindAt()
	return at != nil && !now.Before(*at)
}

// Proposal is what the agent escalating a conflict would do: keep one
// unit, or replace both with a synthesis.
type Proposal struct {
	By        string  `json:"by"`
	WinnerID  *string `json:"winner_id,omitempty"`
	Synthesis *string `json:"synthesis,omitempty"`
}

// Routing is what a request to escalate, put to a vote or send back for
// rework asks of its route; empty fields take the policy's defaults.
type Routing struct {
	// To is the owner ("" : the policy's owner for the conflict's type,
	// else any human operator).
	To string `json:"to,omitempty"`
	// Deadline is how long until the fallback executes, as Go writes
	// durations plus days ("90s", "4h", "2d"); "" for the policy's.
	Deadline string `json:"deadline,omitempty"`
	// Fallback is what executes then; "" for the policy's.
	Fallback Fallback `json:"fallback,omitempty"`
}

// ParseDeadline reads a deadline: a Go duration ("90s", "4h30m") or a
// number of days ("2d"); it must be positive.
func ParseDeadline(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n float64
		if _, err = fmt.Sscanf(days, "%g", &n); err == nil {
			d = time.Duration(n * float64(24*time.Hour))
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("deadline %q: use a positive duration such as 90s, 4h or 2d", s)
	}
	return d, nil
}

// Due is what a routed conflict's clock asks for at a moment.
type Due int

const (
	// DueNothing: its time is not up, or it was told already.
	DueNothing Due = iota
	// DueReminder: a fifth of its time is left and nobody was reminded.
	DueReminder
	// DueOverdue: its deadline passed, there is no fallback, and nobody
	// was told it is overdue.
	DueOverdue
	// DueDeadline: its deadline passed and something executes: its
	// fallback, or for a vote the majority of the ballots cast.
	DueDeadline
)

// DueAt says what the route of a conflict in status s asks for at now. A
// vote's deadline always asks for something (its ballots may decide it
// without a fallback); an escalation or a rework without a fallback is
// only ever reminded, once at a fifth of its time left and once overdue.
func (r Route) DueAt(s ConflictStatus, now time.Time) Due {
	if r.Deadline == nil || !s.Routed() {
		return DueNothing
	}
	if !now.Before(*r.Deadline) {
		switch {
		case r.Fallback != "" || (s == StatusPendingVote && r.Reminded < 2):
			return DueDeadline
		case r.Reminded < 2:
			return DueOverdue
		}
		return DueNothing
	}
	if at := r.RemindAt(); at != nil && !now.Before(*at) && r.Reminded < 1 {
		return DueReminder
	}
	return DueNothing
}

// Routed reports whether a conflict in status s can have a route: it
// waits for people (escalated, put to a vote) or for its authors'
// revision (resolving, sent back for rework).
func (s ConflictStatus) Routed() bool {
	return s == StatusEscalated || s == StatusPendingVote || s == StatusResolving
}

// DueIn says how long the route has left at now, as the queue shows it:
// "2h 10m", "45m", "3d 4h", "overdue", or "" without a deadline.
func (r Route) DueIn(now time.Time) string {
	left, ok := r.Left(now)
	switch {
	case !ok:
		return ""
	case left <= 0:
		return "overdue"
	}
	return ShortDuration(left)
}

// ShortDuration writes d in its two largest units, rounded down: "2d 4h",
// "2h 10m", "45m", "30s".
func ShortDuration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		days, hours := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
		if hours == 0 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd %dh", days, hours)
	case d >= time.Hour:
		hours, mins := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if mins == 0 {
			return fmt.Sprintf("%dh", hours)
		}
		return fmt.Sprintf("%dh %dm", hours, mins)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
}

// Length is how long the route runs from Since to its deadline, 0
// without one.
func (r Route) Length() time.Duration {
	if r.Deadline == nil {
		return 0
	}
	return r.Deadline.Sub(r.Since)
}

// Describe says in a few words who the route waits for and until when, at
// now: "lead-priya, deadline 2026-11-20 17:00 UTC (in 8h), then dismiss";
// "any human operator, no deadline".
func (r Route) Describe(now time.Time) string {
	who := r.Owner
	if who == "" {
		who = "any human operator"
	}
	return who + ", " + r.DescribeDeadline(now)
}

// DescribeDeadline is Describe without the owner.
func (r Route) DescribeDeadline(now time.Time) string {
	if r.Deadline == nil {
		return "no deadline"
	}
	when := r.Deadline.UTC().Format("2006-01-02 15:04 UTC")
	if left := r.DueIn(now); left == "overdue" {
		when += " (overdue)"
	} else {
		when += " (in " + left + ")"
	}
	then := "then nothing executes: it stays until someone answers"
	if r.Fallback != "" {
		then = "then " + string(r.Fallback)
	}
	return "deadline " + when + ", " + then
}

// RoutedTo reports whether the route names id as its owner.
func (r *Route) RoutedTo(id string) bool { return r != nil && id != "" && r.Owner == id }

// Describe says what the proposal is, in the conflict's terms: "keep A
// (mem-023)", "a synthesis".
func (p Proposal) Describe(c Conflict) string {
	switch {
	case p.WinnerID != nil:
		return "keep " + c.Side(*p.WinnerID) + " (" + *p.WinnerID + ")"
	case p.Synthesis != nil:
		return "replace both with a synthesis"
	}
	return "nothing"
}

// FormatDeadline writes a deadline's length as ParseDeadline reads it:
// "2d", "4h", "1h30m", "90s".
func FormatDeadline(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
