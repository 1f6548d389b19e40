package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// voteForm is a ballot being written on a conflict put to a vote, which
// it reads from the conflict's one value (open.go).
type voteForm struct {
	submission
	*openConflict
	me        model.Agent
	choice    string
	focus     focusArea
	rationale textarea.Model
	// stray says that text typed on the choice of side went to the
	// rationale ("" when none did): see pickSide.
	stray string
}

func newVoteForm(c *openConflict, me model.Agent, dark bool) *voteForm {
	f := &voteForm{openConflict: c, me: me, rationale: newTextarea("Why this unit? (required)", dark)}
	for _, b := range c.detail.Ballots {
		if b.VoterID == me.ID {
			f.choice = b.Choice
			f.rationale.SetValue(b.Rationale)
		}
	}
	// It opens on the choice of side, where the side keys act and the
	// hint says so, whether or not a ballot is changed: typing then goes
	// to the rationale only once tab takes the keyboard there.
	f.focus = focusWinner
	return f
}

// startVote opens the ballot on the conflict on screen.
func (m *Model) startVote() tea.Cmd {
	v := &m.conflict
	if why := m.canDecide(); why != "" {
		return m.say("Voting is disabled: " + why + ".")
	}
	if !v.loaded {
		return nil
	}
	d := v.detail
	switch {
	case d.Conflict.Status != model.StatusPendingVote && m.turn() == model.TurnDecide:
		return m.say(v.id + " is not put to a vote; press " + keyOf(m.keys.Decide) + " to decide it.")
	case d.Conflict.Status != model.StatusPendingVote:
		return m.say(v.id + " is not put to a vote. " + m.notYours())
	case !d.Policy.MayVote(m.me):
		return m.say("You may not vote in this field (it needs authority " +
			strconv.Itoa(d.Policy.VoterMinAuthority) + rolesOf(d.Policy) + "); " +
			model.WhoActs(d.Policy, m.agents, summaryOf(d)) + " may.")
	case d.Policy.Recused(m.me, d):
		return m.say("You wrote one of " + v.id + "'s units and the field's policy asks authors not to vote on them; " +
			model.WhoActs(d.Policy, m.agents, summaryOf(d)) + " may.")
	}
	var back tea.Cmd
	if v.vote == nil {
		v.vote = newVoteForm(v.openConflict, m.me, m.styles.Theme.Dark)
		back = m.takeUpDraft(v.openConflict, model.DraftVote)
	}
	m.push(voteScreen{})
	v.vote.layout(m.width, m.bodyHeight())
	return back
}

func rolesOf(p model.Policy) string {
	if len(p.VoterRoles) == 0 {
		return ""
	}
	return " and the role " + strings.Join(p.VoterRoles, " or ")
}

// cycle moves between the choice and the rationale.
func (f *voteForm) cycle() {
	if f.focus == focusWinner {
		f.focus = focusRationale
		f.rationale.Focus()
		return
	}
	f.focus = focusWinner
	f.rationale.Blur()
}

func (f *voteForm) layout(w, h int) {
	f.rationale.SetWidth(min(w, 100))
	f.rationale.SetHeight(5)
}

// mine is the caller's current ballot, if any.
func (f *voteForm) mine() *model.Ballot {
	for _, b := range f.detail.Ballots {
		if b.VoterID == f.me.ID {
			return &b
		}
	}
	return nil
}

// request builds the ballot, or says what is missing.
func (f *voteForm) request(k keymap.Map) (model.VoteRequest, string) {
	req := model.VoteRequest{ConflictID: f.detail.Conflict.ID, Choice: f.choice,
		Rationale: strings.TrimSpace(f.rationale.Value()), ExpectedVersion: f.detail.Conflict.Version}
	switch {
	case f.detail.Conflict.Status != model.StatusPendingVote:
		return req, fmt.Sprintf("%s is not open for votes: it is %s.", f.detail.Conflict.ID, f.detail.Conflict.Status)
	case !f.detail.Policy.MayVote(f.me):
		return req, fmt.Sprintf("You (%s) may not vote in this field.", f.me.ID)
	case f.choice == "":
		return req, fmt.Sprintf("Choose the unit you vote for: %s or %s.", keysOf(k.ChooseA)[0], keysOf(k.ChooseB)[0])
	case req.Rationale == "":
		return req, "Write a rationale first: it is required."
	}
	return req, ""
}

func (m *Model) voteKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.conflict.vote
	k := m.keys
	if f.busy && key.Matches(msg, k.Undo) {
		return m.undo()
	}
	if m.opensHelp(msg) {
		m.openHelp()
		return nil
	}
	switch f.key(msg, k) {
	case stepNone:
		return nil
	case stepSend:
		req, _ := f.request(k)
		cmd := m.holdVote(req.ConflictID+": a vote for "+f.detail.Conflict.Side(req.Choice), req)
		m.afterDecision(req.ConflictID)
		return cmd
	}
	switch {
	case key.Matches(msg, k.Back):
		m.pop()
		return nil
	case key.Matches(msg, k.Submit):
		_, problem := f.request(k)
		f.submit(problem)
		return nil
	case key.Matches(msg, k.Next, k.Prev):
		f.cycle()
		f.stray = ""
		return nil
	}
	if f.focus == focusWinner {
		var text bool
		if f.choice, text = pickSide(msg, k, f.detail.Conflict, f.choice); !text {
			return nil
		}
		f.cycle()
		f.stray = strayNote(k)
	}
	var cmd tea.Cmd
	f.rationale, cmd = f.rationale.Update(msg)
	return cmd
}

// voteHelp is the footer of the ballot.
func (m *Model) voteHelp() []key.Binding {
	k := m.keys
	f := m.conflict.vote
	switch {
	case f != nil && f.busy:
		return []key.Binding{k.Undo}
	case f != nil && f.confirming:
		return []key.Binding{k.Confirm, k.Cancel}
	}
	return []key.Binding{k.Next, k.Submit, k.Back}
}

// stillToVote names the eligible voters who have not voted on the
// conflict of d.
func stillToVote(d model.ConflictDetail, agents []model.Agent) []string {
	var out []string
	for _, a := range agents {
		voted := slices.ContainsFunc(d.Ballots, func(b model.Ballot) bool { return b.VoterID == a.ID })
		if d.Policy.MayVote(a) && !d.Policy.Recused(a, d) && !voted {
			out = append(out, a.ID)
		}
	}
	return out
}

// view draws the ballot, and says on which of its lines the part that
// has the keyboard (or the question) starts, so that a short screen can
// show that part.
func (f *voteForm) view(st Styles, k keymap.Map, agents []model.Agent, w int, pending string) (string, int) {
	var b strings.Builder
	focusAt := 0
	here := func() int { return strings.Count(b.String(), "\n") }
	c := f.detail.Conflict
	b.WriteString(st.Title.Render("Vote on "+safetext.Line(c.ID)) + "\n" + sidesLine(st, f.detail) + "\n\n")
	b.WriteString(f.noticeView(st, w))
	if f.busy && pending != "" {
		b.WriteString(pending)
		return b.String(), 0
	}
	for _, l := range voteLines(st, f.detail, len(f.detail.Ballots)) {
		b.WriteString(strings.Join(wrapLines(l, w), "\n") + "\n") // a rationale in full, wrapped
	}
	if left := stillToVote(f.detail, agents); len(left) > 0 {
		b.WriteString(strings.Join(wrapLines(st.Muted.Render("  still to vote: "+safetext.Line(strings.Join(left, ", "))), w), "\n") + "\n")
	}
	if m := f.mine(); m != nil {
		b.WriteString(st.Muted.Render("  you voted for "+c.Side(m.Choice)+"; a new vote replaces it") + "\n")
	}
	if f.focus == focusWinner {
		focusAt = here() + 1
	}
	forLine := areaLabel(st, f.focus == focusWinner, "For") + "  " + sidesView(st, c, f.choice)
	if f.focus == focusWinner {
		forLine += st.Muted.Render("  " + sidesHint(k) + " · " + keyOf(k.Next) + " to the rationale")
	} else {
		forLine += st.Muted.Render("  " + keyOf(k.Prev) + " to change the side")
	}
	b.WriteString("\n" + strings.Join(wrapLines(forLine, w), "\n") + "\n")
	if f.stray != "" {
		b.WriteString(strings.Join(wrapLines(st.Warn.Render(f.stray), w), "\n") + "\n")
	}
	b.WriteString("\n")
	if f.focus == focusRationale {
		focusAt = here()
	}
	b.WriteString(areaLabel(st, f.focus == focusRationale, "Rationale") + "\n" + f.rationale.View() + "\n")
	if f.confirming {
		t, o, winner, _ := ballotAfter(f.me, f.detail, f.choice)
		line := st.Header.Render("Cast this vote?") + fmt.Sprintf(" For %s (%s). Afterwards: %d for A · %d for B · %d of quorum %d.",
			c.Side(f.choice), safetext.Line(f.choice), t.ForA, t.ForB, t.Total(), t.Quorum)
		switch o {
		case model.VoteWon:
			loser := c.UnitA
			if winner == c.UnitA {
				loser = c.UnitB
			}
			line += st.Warn.Render(" This vote closes it: the majority prevails, " + safetext.Line(winner) +
				" stands and " + safetext.Line(loser) + " is superseded.")
		case model.VoteTiedEscalate:
			line += st.Warn.Render(" This vote ties it at quorum: it goes to a human operator.")
		}
		// In full, however narrow the terminal: the side and the
		// rationale it is cast with.
		why := "  rationale: " + safetext.Line(strings.TrimSpace(f.rationale.Value()))
		focusAt = here() + 1
		b.WriteString("\n" + strings.Join(wrapLines(line, w), "\n") + "\n" + strings.Join(wrapLines(why, w), "\n") + "\n" +
			confirmPrompt(st, k, "cast it") + "\n")
	}
	b.WriteString(f.statusView(st, w))
	return b.String(), focusAt
}

// voteScreen is the ballot on the open conflict.
type voteScreen struct{}

func (voteScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd { return m.voteKey(msg) }
func (voteScreen) help(m *Model) []key.Binding               { return m.voteHelp() }
func (voteScreen) typing() bool                              { return true }

func (voteScreen) place(m *Model) keymap.Context {
	f := m.conflict.vote
	if f == nil {
		return keymap.InWinner
	}
	return formPlace(&f.submission, f.focus)
}

func (voteScreen) view(m *Model, w, h int) string {
	if f := m.conflict.vote; f != nil {
		text, focus := f.view(m.styles, m.keys, m.agents, w, m.pendingLine())
		hint := " · " + keyOf(m.keys.Next) + " moves through the form"
		if f.confirming {
			hint = ""
		}
		return window(m.styles, text, focus, h, hint)
	}
	return ""
}

func (voteScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if f := m.conflict.vote; f != nil {
		f.rationale, cmd = f.rationale.Update(msg)
	}
	return cmd
}
