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
	return "", fmt.Errorf("unknown fallback %q: use dismiss, rework, last_write_wins, confidence_weighted, evidence_count or escalate:ID", s)
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
