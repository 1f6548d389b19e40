package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The parts of a conflict's screen: the lines of its header, and what
// each unit's pane holds.

func escalationNote(st Styles, c model.Conflict) string {
	if e := c.Escalation; e != nil && c.Status == model.StatusEscalated {
		return st.Muted.Render(" · escalated by ") + safetext.Line(e.By) + st.Muted.Render(": "+lineOf(e.Reason))
	}
	if e := c.VoteOpened; e != nil && c.Status == model.StatusPendingVote {
		return st.Muted.Render(" · vote opened by ") + safetext.Line(e.By) + st.Muted.Render(": "+lineOf(e.Reason))
	}
	return ""
}

func winnerNote(r *model.Resolution) string {
	switch {
	case r.WinnerID != nil:
		return ": " + safetext.Line(*r.WinnerID) + " prevails"
	case r.SynthesisUnitID != nil:
		return ": new unit " + safetext.Line(*r.SynthesisUnitID)
	}
	return ""
}

// rulesLine says what each deterministic rule would pick, and whether the
// rules agree.
func (v conflictView) rulesLine(st Styles) string {
	parts, sides := rulePicks(st, v.detail, true)
	return st.Label.Render("Rules: ") + strings.Join(parts, st.Muted.Render(" · ")) + "  " + rulesAgree(st, "rules", sides)
}

// rulePicks lists what each deterministic rule picks ("last write → B",
// with its reason when why), and how many sides they pick between.
func rulePicks(st Styles, d model.ConflictDetail, why bool) (parts []string, sides int) {
	winners := map[string]bool{}
	for _, p := range d.Picks {
		pick := "tie"
		if !p.Tie {
			side := d.Conflict.Side(p.WinnerID)
			winners[side] = true
			pick = sideStyle(st, side).Render(side)
		}
		part := p.Strategy.Row().Short + " → " + pick
		if why {
			part += st.Muted.Render(" (" + p.Why + ")")
		}
		parts = append(parts, part)
	}
	return parts, len(winners)
}

// rulesAgree is the rules' verdict on sides picked, its subject rules:
// "rules agree", "rules split" or "rules cannot decide".
func rulesAgree(st Styles, rules string, sides int) string {
	switch {
	case sides > 1:
		return st.Split.Render(rules + " split")
	case sides == 0:
		return st.Warn.Render(rules + " cannot decide")
	}
	return st.Agree.Render(rules + " agree")
}

func sideStyle(st Styles, side string) lipgloss.Style {
	if side == "B" {
		return st.SideB
	}
	return st.SideA
}

// voteLines are the tally and up to limit ballots, each on a line.
func voteLines(st Styles, d model.ConflictDetail, limit int) []string {
	t := d.Tally
	head := st.Label.Render("Vote: ") + fmt.Sprintf("%d for %s · %d for %s · %d of quorum %d",
		t.ForA, st.SideA.Render("A"), t.ForB, st.SideB.Render("B"), t.Total(), t.Quorum)
	if t.Total() < t.Quorum && d.Conflict.Status == model.StatusPendingVote {
		head += st.Muted.Render(fmt.Sprintf(" — %d more needed", t.Quorum-t.Total()))
	}
	lines := []string{head}
	for i, b := range d.Ballots {
		if i == limit {
			break
		}
		side := d.Conflict.Side(b.Choice)
		lines = append(lines, "  "+safetext.Line(b.VoterID)+" → "+sideStyle(st, side).Render(side)+
			st.Muted.Render(": "+lineOf(b.Rationale)))
	}
	return lines
}

// paneView draws side i: its metadata, then its scrolling text.
func (v conflictView) paneView(st Styles, i int) string {
	text := v.heads[i]
	text.lines, text.widths = text.lines[:len(text.lines):len(text.lines)], text.widths[:len(text.widths):len(text.widths)]
	text.extend(v.panes[i].Visible())
	border := st.PaneBorder
	if i == v.focus && !v.tabs {
		border = st.PaneBorderFocused
	}
	top, bottom := scrollLabels(st, &v.panes[i])
	return labeledBox(text, v.innerW, v.paneH, border, top, bottom)
}

// head lays out pane i's title, the unit's metadata and a rule.
func (v conflictView) head(st Styles, i int) measured {
	sd := v.side(i)
	name, ss := "A", st.SideA
	if i == 1 {
		name, ss = "B", st.SideB
	}
	title := ss.Render(name) + " " + st.PaneTitle.Render(safetext.Line(sd.Unit.ID))
	if v.history {
		title = st.PaneTitle.Render([]string{"History", "Notifications"}[i])
	}
	m := measure(title, v.innerW)
	if !v.history {
		meta := measure(paneMeta(st, sd, v.innerW), v.innerW)
		m.extend(meta.lines, meta.widths)
	}
	m.add(st.Muted.Render(strings.Repeat("─", v.innerW)), v.innerW)
	return m
}

// paneMeta is the unit's header: author, type, confidence, evidence,
// epoch and time, status, intent.
func paneMeta(st Styles, sd model.Side, w int) string {
	u := sd.Unit
	who := safetext.Line(u.Source.AgentID) + " (" + safetext.Line(u.Source.AgentRole) + ")"
	if sd.Agent != nil {
		who += st.Muted.Render(fmt.Sprintf(" authority %d", sd.Agent.Authority))
	}
	score := u.Confidence.ScoreOr(0)
	conf := bar(st, score, 10) + fmt.Sprintf(" %.2f ", score) + st.Muted.Render(safetext.Line(u.Confidence.Reasoning))
	if u.Confidence.Score == nil {
		conf = st.Muted.Render("no confidence given")
	}
	ev := fmt.Sprintf("%d supporting", len(sd.Supporters))
	if len(sd.Supporters) > 0 {
		ev += st.Muted.Render(" — " + safetext.Line(strings.Join(sd.Supporters, ", ")))
	}
	if n := len(u.Confidence.Evidence); n > 0 {
		ev += st.Muted.Render(fmt.Sprintf(" · %d cited", n))
	}
	when := fmt.Sprintf("epoch %d · %s · %s · %s", u.Epoch, u.Source.Timestamp.Local().Format("2006-01-02 15:04"), u.Mode, u.Status)
	intent := "intent: " + safetext.Line(u.Intent.Purpose)
	if u.Intent.TaskID != nil {
		intent += st.Muted.Render(" (task " + safetext.Line(*u.Intent.TaskID) + ")")
	}
	lines := []string{who + st.Muted.Render(" · "+string(u.Type)), conf, st.Label.Render("evidence ") + ev,
		st.Muted.Render(when), st.Muted.Render(intent)}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

// bar draws a confidence score as a bar of n cells.
func bar(st Styles, score float64, n int) string {
	full := int(score*float64(n) + 0.5)
	full = max(0, min(n, full))
	return st.Bar.Full.Render(strings.Repeat("█", full)) + st.Bar.Empty.Render(strings.Repeat("░", n-full))
}

// maxRawBytes bounds the raw text a pane lays out: laying out takes
// about 50 ms a megabyte, in Update. The whole unit is one command away.
const maxRawBytes = 1 << 20

// rawText is a unit's content as it was written, made safe, up to
// maxRawBytes; past that, a note says how to read all of it.
func rawText(content, conflictID string) string {
	text, cut := safetext.Truncate(content, maxRawBytes)
	text = safetext.Block(text)
	if cut {
		text += fmt.Sprintf("\n\n… shown: the first %d KB of %d KB. `arbiter show %s` prints all of it.",
			maxRawBytes>>10, len(content)>>10, safetext.Line(conflictID))
	}
	return text
}

// maxPayloadBytes bounds the part of an event's payload the history
// shows: a RECORD event holds the whole unit.
const maxPayloadBytes = 2 << 10

// excerpt is s cut to at most n bytes, with "…" if it was cut.
func excerpt(s string, n int) string {
	if cut, ok := safetext.Truncate(s, n); ok {
		return cut + "…"
	}
	return s
}

// maxLineBytes bounds the field text a one-line place of the screen
// sanitizes and measures: more than the widest line shows. Descriptions,
// reasons and rationales have no size limit, and the conflict's header
// is drawn at every frame: a 10 MB description took seconds a frame.
const maxLineBytes = 4 << 10

// lineOf is field text made safe for one line, cut to maxLineBytes first.
func lineOf(s string) string { return safetext.Line(excerpt(s, maxLineBytes)) }

// historyText is the conflict's events as a timeline of sentences
// ("epoch 47 · plan-juno escalated it: …"), or, raw, with each event's
// JSON payload.
func historyText(st Styles, d model.ConflictDetail, raw bool) string {
	var b strings.Builder
	for _, e := range d.Events {
		fmt.Fprintf(&b, "%s %s\n", st.Muted.Render(fmt.Sprintf("epoch %d ·", e.Epoch)), eventSentence(st, d.Conflict, e))
		fmt.Fprintf(&b, "  %s\n", st.Muted.Render(safetext.Line(e.At.Local().Format("2006-01-02 15:04:05"))))
		if raw && len(e.Payload) > 2 {
			b.WriteString(st.Faint.Render("  "+safetext.Line(excerpt(string(e.Payload), maxPayloadBytes))) + "\n")
		}
	}
	if b.Len() == 0 {
		return st.Muted.Render("No events.")
	}
	return b.String()
}

// eventSentence says in a sentence what one event of a conflict did; an
// event whose payload does not decode says so.
func eventSentence(st Styles, c model.Conflict, e model.Event) string {
	s, err := eventSentenceOf(st, c, e)
	if err != nil {
		s += st.Error.Render(" · " + lineOf(err.Error()))
	}
	return s
}

// eventSentenceOf reads e's payload through its model type and says what
// it did.
func eventSentenceOf(st Styles, c model.Conflict, e model.Event) (string, error) {
	who := st.Bold.Render(safetext.Line(e.AgentID))
	why := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return ""
		}
		return st.Muted.Render(": " + lineOf(s))
	}
	// Routing, reminders, deadlines and rework: model's sentence names
	// the owner, the deadline and the fallback.
	highway := func(rationale string) (string, error) {
		s, err := model.EventSentence(c, e)
		return safetext.Line(s) + why(rationale), err
	}
	switch e.Operation {
	case model.OpRework, model.OpRemind, model.OpJoin:
		return highway("")
	case model.OpDetect:
		p, err := model.DecodePayload[model.Conflict](e)
		if err == nil && p.ReworkOf != "" {
			return highway("")
		}
		return who + " recorded a contradiction: the conflict opened" + why(c.Description), err
	case model.OpVote:
		p, err := model.DecodePayload[model.VoteLog](e)
		verb := "voted for"
		if p.Request.Changed {
			verb = "changed their vote to"
		}
		return who + " " + verb + " " + c.Side(p.Request.Choice) + " (" + safetext.Line(p.Request.Choice) + ")" + why(p.Request.Rationale), err
	case model.OpReopen:
		p, err := model.DecodePayload[model.ReopenLog](e)
		taken := "its decision"
		if p.Undone.ResolvedBy != "" {
			taken = "the " + string(p.Undone.Strategy) + " decision of " + safetext.Line(p.Undone.ResolvedBy)
		}
		return who + " reopened it, taking back " + taken + why(p.Rationale), err
	case model.OpMerge:
	default:
		return who + " " + safetext.Line(e.Operation), nil
	}
	p, err := model.DecodePayload[model.MergeLog](e)
	r := p.Request
	if err != nil || e.AgentID == model.FallbackAgent || highwayMerge(p) {
		return highway(r.Resolution.Rationale)
	}
	switch {
	case p.Status == model.StatusEscalated:
		return who + " escalated it to a person" + why(r.Resolution.Rationale), nil
	case p.Status == model.StatusPendingVote:
		return who + " put it to a vote" + why(r.Resolution.Rationale), nil
	case r.Strategy == model.Dismiss:
		return who + " dismissed it: both units stand" + why(r.Resolution.Rationale), nil
	case r.Strategy == model.Synthesis && p.NewUnitID != nil:
		return who + " wrote a synthesis, " + safetext.Line(*p.NewUnitID) + ", superseding both" + why(r.Resolution.Rationale), nil
	}
	s := who + " decided it by " + string(r.Strategy)
	if r.Resolution.WinnerID != nil {
		s += ": " + c.Side(*r.Resolution.WinnerID) + " prevails"
	}
	if len(p.SupersededUnits) > 0 {
		s += ", " + safetext.Line(strings.Join(p.SupersededUnits, ", ")) + " superseded"
	}
	return s + why(r.Resolution.Rationale), nil
}

// highwayMerge reports whether a MERGE is about a route: a rework
// round's end, or an escalation or a vote with an owner, a deadline or a
// proposal.
func highwayMerge(p model.MergeLog) bool {
	switch {
	case p.Request.Strategy == model.Rework:
		return true
	case p.Status == model.StatusEscalated || p.Status == model.StatusPendingVote:
		return p.Route != nil && (p.Route.Owner != "" || p.Route.Deadline != nil) || p.Request.Proposal != nil
	}
	return false
}

func notificationsText(st Styles, d model.ConflictDetail) string {
	var b strings.Builder
	for _, n := range d.Notifications {
		action := ""
		if n.RequiresAction {
			action = st.Warn.Render(" · action needed")
		}
		fmt.Fprintf(&b, "%s → %s%s\n  %s\n", st.Muted.Render(fmt.Sprintf("epoch %-5d", n.Epoch)),
			st.Bold.Render(safetext.Line(n.AgentID)), action, safetext.Line(n.Event+": "+n.Summary))
	}
	if b.Len() == 0 {
		return st.Muted.Render("No notifications.")
	}
	return b.String()
}
