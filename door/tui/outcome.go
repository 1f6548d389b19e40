package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// What a decision written from the screen did, said in the footer once
// the field answered, the same way whichever key made it (a quick key,
// the decision form, the ballot form), while the person is back on the
// queue.

// afterDecision goes back to the queue once a form's decision on
// conflict id is confirmed, the cursor on the next row still waiting, as
// after a quick decision.
func (m *Model) afterDecision(id string) {
	m.toQueue()
	m.queue.skipTo(m.queueRows(), m.isPending, id)
}

// mergeSaid says what a written decision did: "Written. conflict-008 is
// now resolved (confidence_weighted): mem-023 prevails · superseded:
// mem-026 · notified: ana-quill, sre-atlas."
func mergeSaid(r model.MergeResponse) string {
	c := r.Conflict
	var b strings.Builder
	if o := r.Offline; o != nil {
		fmt.Fprintf(&b, "Recorded in %s (message %s): %s becomes %s once `arbiter apply` runs; nobody is notified until then",
			safetext.Line(o.File), safetext.Line(o.MessageID), safetext.Line(c.ID), r.Status)
	} else {
		fmt.Fprintf(&b, "Written. %s is now %s", safetext.Line(c.ID), r.Status)
	}
	if res := c.Resolution; res != nil {
		fmt.Fprintf(&b, " (%s)", res.Strategy)
		if res.WinnerID != nil {
			b.WriteString(": " + safetext.Line(*res.WinnerID) + " prevails")
		}
	}
	if n := r.SideEffects.NewUnitID; n != nil {
		b.WriteString(" · new unit: " + safetext.Line(*n))
	}
	if s := r.SideEffects.SupersededUnits; len(s) > 0 {
		b.WriteString(" · superseded: " + safetext.Line(strings.Join(s, ", ")))
	}
	if n := r.SideEffects.NotifiedAgents; len(n) > 0 && r.Offline == nil {
		b.WriteString(" · notified: " + safetext.Line(strings.Join(n, ", ")))
	}
	return b.String() + "."
}

// voteSaid says what a ballot cast did: "Your vote is counted: 2 for A ·
// 1 for B · 3 of quorum 3. The vote is closed: conflict-014 is now
// resolved, mem-046 prevails."
func voteSaid(r model.VoteResponse) string {
	c := r.Conflict
	if o := r.Offline; o != nil {
		return fmt.Sprintf("Recorded in %s: your vote on %s is cast on the live field by `arbiter apply`.",
			safetext.Line(o.File), safetext.Line(c.ID))
	}
	t := r.Tally
	s := fmt.Sprintf("Your vote on %s is counted: %d for A · %d for B · %d of quorum %d.", safetext.Line(c.ID),
		t.ForA, t.ForB, t.Total(), t.Quorum)
	if r.Changed {
		s += " It replaces your earlier vote."
	}
	if r.Closed {
		s += " The vote is closed: " + safetext.Line(c.ID) + " is now " + string(r.Status)
		if res := c.Resolution; res != nil && res.WinnerID != nil {
			s += ", " + safetext.Line(*res.WinnerID) + " prevails"
		}
		if n := r.SideEffects.NotifiedAgents; len(n) > 0 {
			s += " · notified: " + safetext.Line(strings.Join(n, ", "))
		}
		s += "."
	}
	return s
}

// reworkSaid says what sending a conflict back did.
func reworkSaid(r model.ReworkResponse) string {
	s := "Sent back: " + safetext.Line(r.Conflict.ID) + " is now " + string(r.Status) + " until its authors revise it"
	if n := r.NotifiedAgents; len(n) > 0 {
		s += " · notified: " + safetext.Line(strings.Join(n, ", "))
	}
	return s + "."
}

// saidOf says what one written answer did.
func saidOf(w written) string {
	switch {
	case w.merge != nil:
		return mergeSaid(*w.merge)
	case w.vote != nil:
		return voteSaid(*w.vote)
	case w.rework != nil:
		return reworkSaid(*w.rework)
	}
	return "Written: " + safetext.Line(w.conflict) + "."
}
