package tui

import (
	"strings"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/service/review"

	"charm.land/bubbles/v2/key"
)

// An escalation on the screen: who it is routed to and until when, what
// the escalating agent proposes, and the keys that answer it — approve,
// modify, send back for rework.

// routed reports whether c waits on a route (an owner, a deadline) or a
// rework, so that the conflict's header has a line for it; one routed to
// any human operator without a deadline has none.
func routed(c model.Conflict) bool {
	r := c.Route
	return (r != nil && c.Status.Routed() && (r.Owner != "" || r.Deadline != nil)) ||
		(c.Rework != nil && c.Status == model.StatusResolving)
}

// proposed reports whether c carries a proposal a person can still
// answer.
func proposed(c model.Conflict) bool {
	return c.Proposal != nil && c.Status == model.StatusEscalated
}

// highwayLines is how many lines routeLine and proposalLine take.
func highwayLines(c model.Conflict) int {
	n := 0
	if routed(c) {
		n++
	}
	if proposed(c) {
		n++
	}
	return n
}

// routeLine says who the conflict waits for and until when: "Routed to
// you · deadline 2026-11-24 09:00 UTC (in 1d 15h), then rework".
func routeLine(st Styles, c model.Conflict, viewer string, now time.Time) string {
	var who string
	switch {
	case c.Status == model.StatusResolving && c.Rework != nil:
		who = st.Header.Render("Sent back") + " to its authors by " + safetext.Line(c.Rework.By) +
			st.Muted.Render(": "+lineOf(c.Rework.Reason))
	case c.Status == model.StatusPendingVote:
		who = st.Header.Render("Put to a vote")
	case c.Route.RoutedTo(viewer):
		who = st.Header.Render("Routed to you") + st.Muted.Render(" ("+safetext.Line(viewer)+")")
	case c.Route.Owner == "":
		who = st.Header.Render("Routed to") + " any human operator"
	default:
		who = st.Header.Render("Routed to") + " " + safetext.Line(c.Route.Owner)
	}
	if c.Route == nil {
		return who
	}
	when := safetext.Line(c.Route.DescribeDeadline(now)) // it may name a person to escalate to
	switch {
	case c.Route.DueIn(now) == "overdue":
		when = st.Error.Render(when)
	case c.Route.Urgent(now):
		when = st.Warn.Render(when)
	default:
		when = st.Muted.Render(when)
	}
	return who + st.Muted.Render(" · ") + when
}

// proposalLine says what the escalating agent would do, and the keys
// that answer it when the person may: "plan-juno proposes: keep A
// (mem-023) · p approve · m modify · S send back".
func proposalLine(st Styles, k keymap.Map, c model.Conflict, answers bool) string {
	p := c.Proposal
	s := st.Header.Render(safetext.Line(p.By)+" proposes:") + " " + safetext.Line(p.Describe(c))
	if answers {
		s += st.Muted.Render(" · ") + hints(st, k.Approve, k.Modify, k.SendBack)
	}
	if p.Synthesis != nil {
		s += st.Muted.Render(" — “" + lineOf(*p.Synthesis) + "”")
	}
	return s
}

// hints writes bindings as the footer does: "p approve · m modify".
func hints(st Styles, bs ...key.Binding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = st.Key.Render(keyOf(b)) + " " + st.Muted.Render(b.Help().Desc)
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// highway is the field's answers to escalations, if it has them.
func (m *Model) highway() (review.Highway, bool) {
	hw, ok := m.svc.(review.Highway)
	return hw, ok
}

// answersProposal reports whether the person may answer the proposal of
// the conflict on screen now.
func (m *Model) answersProposal() bool {
	v := &m.conflict
	_, ok := m.highway()
	return ok && v.loaded && proposed(v.detail.Conflict) && m.canDecide() == "" && m.turn() == model.TurnDecide
}

// mayRework reports whether the person may send the conflict on screen
// back to its authors now.
func (m *Model) mayRework() bool {
	v := &m.conflict
	_, hw := m.highway()
	_, offline := m.svc.Offline()
	c := v.detail.Conflict
	return hw && !offline && v.loaded && m.canDecide() == "" && !(c.Status == model.StatusResolving && c.Rework != nil) &&
		model.Permit(m.me, v.detail, model.Rework) == nil
}
