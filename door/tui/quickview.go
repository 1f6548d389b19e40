package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// quickLabel names a quick decision in a few words, for the undo line.
func (m *Model) quickLabel(kind quickKind, plans []plan) string {
	verb := kindVerbs[kind]
	if len(plans) == 1 {
		pl := plans[0]
		if pl.vote != nil {
			return pl.req.ConflictID + ": a ballot for " + pl.detail.Conflict.Side(pl.vote.Choice)
		}
		if pl.req.Strategy != "" && kind != quickDismiss && kind != quickRework {
			verb += " (" + string(pl.req.Strategy) + ")"
		}
		return pl.req.ConflictID + ": " + verb
	}
	n := 0
	for _, pl := range plans {
		if pl.refusal == "" {
			n++
		}
	}
	return fmt.Sprintf("%s on %d conflicts", verb, n)
}

// promptView is the prompt's lines: what will be recorded, or why not,
// and the rationale being typed.
func (m *Model) promptView() string {
	p := m.prompt
	st := m.styles
	w := m.width
	var head string
	switch {
	case !p.loaded:
		head = st.Muted.Render("Reading " + safetext.Line(strings.Join(p.targets, ", ")) + "…")
	case len(p.plans) == 1:
		head = m.planLine(p.kind, p.plans[0])
	default:
		head = m.batchLine(p.kind, p.plans)
	}
	lines := wrapLines(head, w)
	if p.loaded && len(p.plans) > 1 {
		lines = append(lines, m.batchPlanLines(p.kind, p.plans, w)...)
	}
	if p.problem != "" {
		lines = append(lines, wrapLines(st.Error.Render(p.problem), w)...)
	}
	hint := st.Muted.Render(helpOf(m.keys.Accept) + " · " + keyOf(m.keys.Back) + " cancel")
	if h, ok := m.helpHint(); ok {
		hint += st.Muted.Render(" · " + helpOf(h))
	}
	lines = append(lines, st.Key.Render("›")+" "+p.input.View(), hint)
	return strings.Join(lines, "\n")
}

// planLine says what one quick decision records.
func (m *Model) planLine(kind quickKind, pl plan) string {
	st := m.styles
	c := pl.detail.Conflict
	name := kindNames[kind]
	if pl.refusal != "" {
		return st.Error.Render(name+" on "+safetext.Line(pl.req.ConflictID)+" would be refused: ") + safetext.Line(pl.refusal)
	}
	if kind == quickReopen {
		r := c.Resolution
		owner, why := model.ReopenOwner(pl.detail)
		to := "any human operator"
		if owner != "" {
			to = safetext.Line(owner)
		}
		return st.Header.Render(name) + " " + safetext.Line(c.ID) + ": its " + string(r.Strategy) + " decision by " +
			safetext.Line(r.ResolvedBy) + " is taken back; the conflict is escalated again, to " + to +
			" (" + safetext.Line(why) + ")" + st.Muted.Render(" · why?")
	}
	if kind == quickRework {
		return m.reworkLine(pl)
	}
	if pl.vote != nil {
		return m.ballotLine(pl)
	}
	fs := model.Foresee(pl.detail, m.agents, pl.req.Strategy, pl.winner)
	var parts []string
	if kind == quickApprove {
		parts = append(parts, safetext.Line(c.Proposal.By)+"'s proposal: "+safetext.Line(c.Proposal.Describe(c)))
	}
	switch {
	case pl.req.Strategy == model.Synthesis:
		parts = append(parts, safetext.Line(c.ID)+": a new unit replaces both")
	case kind == quickDismiss:
		parts = append(parts, safetext.Line(c.ID)+": not a real conflict, both units stand")
	default:
		why := "your judgment"
		for _, pick := range pl.detail.Picks {
			if pick.Strategy == pl.req.Strategy && !pick.Tie {
				why = pick.Why
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %s prevails by %s (%s)", safetext.Line(c.ID), safetext.Line(pl.winner), pl.req.Strategy, safetext.Line(why)))
	}
	for _, u := range fs.Superseded {
		parts = append(parts, safetext.Line(u)+" superseded")
	}
	if _, offline := m.svc.Offline(); offline {
		parts = append(parts, "will notify "+safetext.Line(strings.Join(fs.Notified, ", "))+" when applied")
	} else {
		parts = append(parts, "notifies "+safetext.Line(strings.Join(fs.Notified, ", ")))
	}
	return st.Header.Render(name) + " " + strings.Join(parts, st.Muted.Render(" · "))
}

// batchLine says what a quick decision on marked rows records.
func (m *Model) batchLine(kind quickKind, plans []plan) string {
	st := m.styles
	name := batchNames[kind]
	var refused []string
	ballots := 0
	for _, pl := range plans {
		switch {
		case pl.refusal != "":
			refused = append(refused, safetext.Line(pl.req.ConflictID))
		case pl.vote != nil:
			ballots++
		}
	}
	how := " · each in its own transaction, by the rule that picks the kept unit where one does"
	switch kind {
	case quickDismiss:
		how = " · each in its own transaction; both units of each stand"
	case quickRework:
		how = " · to their authors, your rationale their directive"
	case quickApprove:
		how = " · each as proposed, in its own transaction"
	}
	line := st.Header.Render(fmt.Sprintf("%s %d marked conflicts", name, len(plans))) + st.Muted.Render(how)
	if ballots > 0 {
		line += st.Muted.Render(fmt.Sprintf(" · on %d put to a vote, your ballot for %s instead", ballots, kindNames[kind][len(kindNames[kind])-1:]))
	}
	if len(refused) > 0 {
		line += st.Warn.Render(fmt.Sprintf(" · %d would be refused and left: %s", len(refused), strings.Join(refused, ", ")))
	}
	return line
}

// batchPlanLines list a batch's conflicts one a line: what each one's
// decision keeps and whom it tells, or why it would be refused; as many
// as a third of the screen holds, then how many more.
func (m *Model) batchPlanLines(kind quickKind, plans []plan, w int) []string {
	st := m.styles
	room := max(3, m.height/3)
	var out []string
	for i, pl := range plans {
		if len(out) >= room-1 && i < len(plans)-1 {
			out = append(out, st.Muted.Render(fmt.Sprintf("  … and %d more marked conflicts, each decided the same way", len(plans)-i)))
			break
		}
		id := safetext.Line(pl.req.ConflictID)
		var what string
		switch {
		case pl.refusal != "":
			what = st.Warn.Render("refused and left: " + safetext.Line(pl.refusal))
		case pl.vote != nil:
			what = "your ballot for " + pl.detail.Conflict.Side(pl.vote.Choice) + " (" + safetext.Line(pl.vote.Choice) + ")"
		case kind == quickRework:
			what = "back to its authors for rework"
		default:
			what = m.planOutcome(kind, pl)
		}
		out = append(out, wrapLines("  "+id+": "+what, w)...)
	}
	return out
}

// planOutcome says in a few words what one planned decision keeps and
// whom it tells: "mem-035 prevails (confidence_weighted) · notifies
// ana-quill, sre-atlas".
func (m *Model) planOutcome(kind quickKind, pl plan) string {
	fs := model.Foresee(pl.detail, m.agents, pl.req.Strategy, pl.winner)
	what := "both units stand"
	switch {
	case pl.req.Strategy == model.Synthesis:
		what = "a new unit replaces both"
	case kind != quickDismiss && pl.winner != "":
		what = safetext.Line(pl.winner) + " prevails (" + string(pl.req.Strategy) + ")"
	}
	if len(fs.Notified) > 0 {
		what += " · notifies " + safetext.Line(strings.Join(fs.Notified, ", "))
	}
	return what
}

// promptHeight is how many lines the prompt takes at the bottom.
func (m *Model) promptHeight() int {
	if m.prompt == nil {
		return 0
	}
	return strings.Count(m.promptView(), "\n") + 1
}
