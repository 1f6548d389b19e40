package tui

import (
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	"github.com/charmbracelet/x/ansi"
)

// The queue's table: its columns at each width, and one row.

// columns lays out the queue's table for a width.
type columns struct{ id, typ, status, age, agents, tally, owner, due, desc int }

// queueColumns lays the table out for width w and ids up to idWidth
// cells: an id, the one column a person types back into the command
// line, is never cut.
// queueColumns are the columns at width w; oneAuthor leaves AGENTS out,
// every row having the same author on both sides (another program's
// memories, all written by its server).
func queueColumns(w, idWidth int, oneAuthor bool) columns {
	c := columns{id: max(16, idWidth+3), typ: 13, status: 13, age: 5, agents: 30, tally: 6, owner: 13, due: 9}
	if w < 130 {
		c.agents = 24
	}
	if w < 110 {
		c.agents, c.typ = 22, 0
	}
	if w < 90 {
		c.agents, c.status, c.owner = 0, 10, 10
	}
	if oneAuthor {
		c.agents = 0
	}
	c.desc = max(12, w-c.id-c.typ-c.status-c.age-c.agents-c.tally-c.owner-c.due-2)
	return c
}

func (c columns) header() string {
	return cell("  ID", c.id) + cell("TYPE", c.typ) + cell("STATUS", c.status) + cell("AGE", c.age) +
		cell("AGENTS", c.agents) + cell("VOTES", c.tally) + cell("OWNER", c.owner) + cell("DUE", c.due) + cell("DESCRIPTION", c.desc)
}

// row is one conflict's line; flag is its mark (see queue.flag). A row
// that is not the person's turn is dimmed, unless it is routed to them.
func (c columns) row(st Styles, r model.ConflictSummary, flag rune, dim bool, viewer string, now time.Time) string {
	status := strings.ReplaceAll(string(r.Status), "pending_vote", "vote")
	statusStyle, ok := st.Status[string(r.Status)]
	if !ok {
		statusStyle = st.Row
	}
	tally := ""
	if r.Tally != nil && r.Status == model.StatusPendingVote {
		tally = fmt.Sprintf("%d/%d", r.Tally.Total(), r.Tally.Quorum)
	}
	agents := lineOf(r.AgentA) + " vs " + lineOf(r.AgentB)
	line := string(flag) + " " + cell(safetext.Line(r.ID), c.id-2) + cell(string(r.Type), c.typ) +
		statusStyle.Render(cell(status, c.status)) + st.Muted.Render(cell(age(now, r.DetectedAt), c.age)) +
		cell(agents, c.agents) + cell(tally, c.tally) + ownerCell(st, r, viewer, c.owner) + dueCell(st, r, now, c.due) +
		st.Muted.Render(cell(detectedMark(r.Conflict)+lineOf(r.Description), c.desc))
	if flag == ' ' && dim && !r.Route.RoutedTo(viewer) {
		return st.Faint.Render(ansi.Strip(line))
	}
	return line
}

// detectedMark marks a conflict found by a rule or a reading of the
// units (detection, an import's rule) rather than declared by an agent.
func detectedMark(c model.Conflict) string {
	if c.DetectedBy == model.DetectedExplicit || c.DetectedBy == "" {
		return ""
	}
	return "◇ "
}

// ownerCell is who the row is routed to: "you" for the viewer.
func ownerCell(st Styles, r model.ConflictSummary, viewer string, w int) string {
	switch {
	case r.Route == nil || !r.Status.Routed():
		return cell("", w)
	case r.Route.RoutedTo(viewer):
		return st.Header.Render(cell("you", w))
	case r.Route.Owner == "":
		return st.Muted.Render(cell("operators", w))
	}
	return cell(safetext.Line(r.Route.Owner), w)
}

// dueCell is how long the row's route has left: muted while there is
// time, warning with a fifth of it left, an error once overdue.
func dueCell(st Styles, r model.ConflictSummary, now time.Time, w int) string {
	if r.Route == nil || !r.Status.Routed() {
		return cell("", w)
	}
	left := r.Route.DueIn(now)
	switch {
	case left == "overdue":
		return st.Error.Render(cell(left, w))
	case r.Route.Urgent(now):
		return st.Warn.Render(cell("!"+left, w)) // a sign that needs no colour
	}
	return st.Muted.Render(cell(left, w))
}

// cell pads or cuts s to exactly w cells (0: nothing).
func cell(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w-1, "…")
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

// age says how long ago t was, in one short unit.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
