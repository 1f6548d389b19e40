package tui

import (
	"fmt"
	"slices"
	"strings"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// decideForm is the decision being written for one conflict, which it
// reads from the conflict's one value (open.go). It outlives refusals and
// leaving the form: what was typed stays until it is written.
type decideForm struct {
	submission
	*openConflict
	// offline: decisions go to a decisions file, and nobody is notified
	// until it is applied.
	offline   bool
	choices   []model.Choice
	sel       int
	winner    string
	rationale textarea.Model
	synthesis textarea.Model
	focus     focusArea
	preview   string // rendered synthesis, when previewing
	// check is the field's verdict on the decision as it stands (MERGE's
	// dry run), "" when it would take it; checked is the request it was
	// run on.
	check   string
	checked string
	// modifies is the proposal the form changes (startModify), whose
	// note the rationale gets.
	modifies *model.Proposal
	// suggest is the synthesis's start from the suggestion (suggest.go).
	suggest suggestState
	// stray says that text typed on the choice of the winner went to
	// the rationale ("" when none did): see pickSide.
	stray string
}

// checkedMsg is a dry run's verdict on a form's decision.
type checkedMsg struct {
	id, key, refusal string
}

type previewMsg struct{ id, out string }

func newDecideForm(c *openConflict, me model.Agent, dark bool, k keymap.Map) *decideForm {
	f := &decideForm{
		openConflict: c,
		choices:      model.Choices(me, c.detail),
		rationale:    newTextarea("Why this decision? (required; it goes in the audit trail)", dark),
		synthesis:    newTextarea("The new unit's text, in markdown. "+keyOf(k.Editor)+" opens $EDITOR with both units.", dark),
	}
	f.sel = -1
	for i, c := range f.choices {
		if c.Err == nil {
			f.sel = i
			break
		}
	}
	if f.sel < 0 {
		f.sel = 0
	}
	f.pickDefaultWinner()
	return f
}

// startDecide opens the decision form on the conflict on screen, with
// what was typed before if it was left unwritten.
func (m *Model) startDecide() tea.Cmd {
	c := m.conflict.openConflict
	if why := m.notYours(); why != "" {
		return m.say(why)
	}
	f := c.decide
	var back tea.Cmd
	if f == nil {
		f = newDecideForm(c, m.me, m.styles.Theme.Dark, m.keys)
		_, f.offline = m.svc.Offline()
		c.decide = f
		back = m.takeUpDraft(c, model.DraftDecide)
	} else {
		f.refresh(m.me) // the conflict may have moved while the form was left
	}
	m.push(decideScreen{})
	f.layout(m.width, m.bodyHeight())
	return tea.Batch(m.checkDraft(f), back)
}

// checkDraft runs MERGE's dry run on the form's decision as it stands,
// unless it ran on the same decision already: the form shows a refusal
// before anything is confirmed.
func (m *Model) checkDraft(f *decideForm) tea.Cmd {
	req, problem := f.request()
	if problem != "" && req.Strategy == "" {
		return nil // the strategy is refused: the form says why already
	}
	req.Resolution.Rationale = "—" // any: the rules check it is there
	if req.Strategy == model.Synthesis && req.Resolution.Synthesis == nil {
		req.Resolution.Synthesis = model.Ptr("—")
	}
	key := fmt.Sprintf("%s|%s|%v|%d", req.Strategy, f.winner, req.Resolution.WinnerID != nil, req.ExpectedVersion)
	if key == f.checked {
		return nil
	}
	f.checked = key
	ctx, svc, as, id := m.ctx, m.svc, m.opt.As, f.detail.Conflict.ID
	return func() tea.Msg {
		refusal := ""
		if err := svc.CheckMerge(ctx, as, req); err != nil {
			refusal = plainError(err)
		}
		return checkedMsg{id: id, key: key, refusal: refusal}
	}
}

// refresh moves the form's choices onto the conflict's state, keeping
// what was typed and the strategy chosen.
func (f *decideForm) refresh(me model.Agent) {
	s := f.strategy()
	f.choices = model.Choices(me, f.detail)
	f.sel = min(f.sel, len(f.choices)-1)
	for i, c := range f.choices {
		if c.Strategy == s {
			f.sel = i
		}
	}
}

func (f *decideForm) strategy() model.Strategy { return f.choices[f.sel].Strategy }

// pickDefaultWinner preselects the rule's pick for deterministic rules.
func (f *decideForm) pickDefaultWinner() {
	s := f.strategy()
	if !s.Deterministic() {
		if !s.NeedsWinner() {
			f.winner = ""
		}
		return
	}
	p := model.RulePick(s, f.detail.A.Contender(), f.detail.B.Contender())
	f.winner = p.WinnerID
}

// areas lists the parts of the form the chosen strategy uses.
func (f *decideForm) areas() []focusArea {
	out := []focusArea{focusStrategy}
	if f.strategy().TakesWinner() {
		out = append(out, focusWinner)
	}
	out = append(out, focusRationale)
	if f.strategy() == model.Synthesis {
		out = append(out, focusSynthesis)
	}
	return out
}

// cycle moves the focus to the next (or previous) part of the form.
func (f *decideForm) cycle(delta int) {
	fs := f.areas()
	i := max(0, slices.Index(fs, f.focus))
	f.focus, f.stray = fs[(i+delta+len(fs))%len(fs)], ""
	f.rationale.Blur()
	f.synthesis.Blur()
	switch f.focus {
	case focusRationale:
		f.rationale.Focus()
	case focusSynthesis:
		f.synthesis.Focus()
	}
}

// request builds the MERGE request, or says what is missing.
func (f *decideForm) request() (model.MergeRequest, string) {
	s := f.strategy()
	if err := f.choices[f.sel].Err; err != nil {
		return model.MergeRequest{}, err.Message
	}
	req := model.MergeRequest{ConflictID: f.detail.Conflict.ID, Strategy: s, ExpectedVersion: f.detail.Conflict.Version,
		Resolution: model.MergeResolution{Rationale: strings.TrimSpace(f.rationale.Value())}}
	var problems []string
	if s.NeedsWinner() || (s.TakesWinner() && f.winner != "") {
		if f.winner == "" {
			problems = append(problems, "Pick the winner: A or B.")
		} else {
			req.Resolution.WinnerID = model.Ptr(f.winner)
		}
	}
	if req.Resolution.Rationale == "" {
		problems = append(problems, "Write a rationale first: it is required.")
	}
	if s == model.Synthesis {
		text := strings.TrimSpace(f.synthesis.Value())
		if text == "" {
			problems = append(problems, "Write the synthesis text first.")
		} else {
			req.Resolution.Synthesis = &text
		}
	}
	f.noteModification(&req)
	if len(problems) > 0 {
		return req, problems[0]
	}
	return req, ""
}

func (m *Model) decideKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.conflict.decide
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
		req, _ := f.request()
		cmd := m.holdPending(&pending{label: req.ConflictID + ": " + string(req.Strategy), reqs: []model.MergeRequest{req}, form: req.ConflictID})
		m.afterDecision(req.ConflictID)
		return cmd
	}
	if cmd, ok := m.suggestKey(f, msg); ok {
		return cmd
	}
	if cmd, ok := m.takeKey(f, msg); ok {
		return cmd
	}
	synthesis := f.strategy() == model.Synthesis
	switch {
	case key.Matches(msg, k.Back):
		if f.preview != "" {
			f.preview = ""
			return nil
		}
		m.pop()
		return nil
	case key.Matches(msg, k.Submit):
		_, problem := f.request()
		if problem == "" && f.check != "" {
			problem = f.check
		}
		f.submit(problem)
		return nil
	case key.Matches(msg, k.Next):
		f.cycle(1)
		return nil
	case key.Matches(msg, k.Prev):
		f.cycle(-1)
		return nil
	case key.Matches(msg, k.Editor) && synthesis:
		return writeDraft(m.conflict.id, editorText(f))
	case key.Matches(msg, k.Preview) && synthesis:
		if f.preview != "" {
			f.preview = ""
			return nil
		}
		md, id, text, w, theme := m.md, m.conflict.id, f.synthesis.Value(), min(m.width, 100)-2, m.styles.Theme.Name()
		return func() tea.Msg { return previewMsg{id: id, out: md.Render(text, w, theme)} }
	}
	var cmd tea.Cmd
	switch f.focus {
	case focusStrategy:
		switch {
		case key.Matches(msg, k.Up):
			f.sel = max(0, f.sel-1)
		case key.Matches(msg, k.Down):
			f.sel = min(len(f.choices)-1, f.sel+1)
		}
		f.pickDefaultWinner()
		return m.checkDraft(f)
	case focusWinner:
		var text bool
		if f.winner, text = pickSide(msg, k, f.detail.Conflict, f.winner); !text {
			return m.checkDraft(f)
		}
		for f.focus != focusRationale {
			f.cycle(1)
		}
		f.stray = strayNote(k)
		f.rationale, cmd = f.rationale.Update(msg)
		return tea.Batch(cmd, m.checkDraft(f))
	case focusRationale:
		f.rationale, cmd = f.rationale.Update(msg)
	case focusSynthesis:
		f.preview = ""
		f.synthesis, cmd = f.synthesis.Update(msg)
		f.recount()
	}
	return cmd
}

// decideHelp is the footer of the decision form.
func (m *Model) decideHelp() []key.Binding {
	k := m.keys
	f := m.conflict.decide
	switch {
	case f != nil && f.busy:
		return []key.Binding{k.Undo}
	case f != nil && f.confirming:
		return []key.Binding{k.Confirm, k.Cancel}
	}
	b := []key.Binding{k.Next, k.Submit, k.Back}
	switch {
	case f != nil && f.strategy() == model.Synthesis && f.suggest.unsettled > 0:
		b = append(b, k.TakeA, k.TakeB, k.Editor, k.Suggest)
	case f != nil && f.strategy() == model.Synthesis:
		b = append(b, k.Editor, k.Preview, k.Suggest)
	default:
		b = append(b, k.Suggest)
	}
	return b
}

// view draws the form, and says on which of its lines the part that has
// the keyboard starts, so that a short screen can show that part.
func (f *decideForm) view(st Styles, k keymap.Map, agents []model.Agent, w int, pending string) (string, int) {
	var b strings.Builder
	focusAt := 0
	mark := func(fl focusArea) {
		if f.focus == fl {
			focusAt = strings.Count(b.String(), "\n")
		}
	}
	c := f.detail.Conflict
	title := "Decide " + safetext.Line(c.ID)
	if p := f.modifies; p != nil {
		title = "Modify " + safetext.Line(p.By) + "'s proposal on " + safetext.Line(c.ID)
	}
	b.WriteString(st.Title.Render(title) + st.Muted.Render(fmt.Sprintf(" · %s · version %d", c.Status, c.Version)) + "\n")
	b.WriteString(ansi.Truncate(sidesLine(st, f.detail), w, "…") + "\n\n")
	b.WriteString(f.noticeView(st, w))
	switch {
	case f.busy && pending != "":
		b.WriteString(pending)
		return b.String(), 0
	case f.confirming:
		b.WriteString(f.confirmView(st, k, agents, w))
		return b.String(), 0
	}
	mark(focusStrategy)
	b.WriteString(areaLabel(st, f.focus == focusStrategy, "Strategy") + "\n")
	for i, ch := range f.choices {
		line := "  " + string(ch.Strategy)
		if ch.Strategy.Extension() {
			line += " (arbiter: not a real conflict)"
		}
		switch {
		case ch.Err != nil:
			line = st.Disabled.Render(line) + st.Muted.Render(" — "+safetext.Line(ch.Err.Message)) // it may name the caller
		case i == f.sel:
			line = st.Selected.Render("▸" + line[1:])
		}
		b.WriteString(ansi.Truncate(line, w, "…") + "\n")
	}
	if f.check != "" {
		b.WriteString(strings.Join(wrapLines(st.Error.Render("✗ "+safetext.Line(f.check)), w), "\n") + "\n")
	}
	if slices.Contains(f.areas(), focusWinner) {
		b.WriteString("\n")
		mark(focusWinner)
		b.WriteString(strings.Join(wrapLines(areaLabel(st, f.focus == focusWinner, "Winner")+"  "+f.winnerView(st, k), w), "\n") + "\n")

	}
	b.WriteString("\n")
	mark(focusRationale)
	b.WriteString(areaLabel(st, f.focus == focusRationale, "Rationale") + "\n")
	if f.stray != "" && f.focus == focusRationale {
		b.WriteString(strings.Join(wrapLines(st.Warn.Render(f.stray), w), "\n") + "\n")
	}
	b.WriteString(f.rationale.View() + "\n")
	if f.strategy() == model.Synthesis {
		b.WriteString("\n")
		mark(focusSynthesis)
		b.WriteString(areaLabel(st, f.focus == focusSynthesis, "Synthesis") + f.synthesisHints(st, k) + "\n")
		if f.preview != "" {
			b.WriteString(f.preview + "\n")
		} else {
			b.WriteString(f.synthesis.View() + "\n")
		}
		b.WriteString(f.suggestNote(st, w))
	}
	b.WriteString(f.statusView(st, w))
	return b.String(), focusAt
}

// layout sizes the text boxes for a w × h area: the synthesis box takes
// what the rest leaves, and never fewer than five lines (the form then
// scrolls to the part being typed).
func (f *decideForm) layout(w, h int) {
	f.rationale.SetWidth(min(w, 100))
	f.rationale.SetHeight(3)
	f.synthesis.SetWidth(min(w, 100))
	f.synthesis.SetHeight(max(5, h-15-len(f.choices)))
}

func (f *decideForm) winnerView(st Styles, k keymap.Map) string {
	c := f.detail.Conflict
	out := sidesView(st, c, f.winner)
	if f.focus == focusWinner {
		out += st.Muted.Render("  " + sidesHint(k))
	}
	if s := f.strategy(); s.Deterministic() {
		p := model.RulePick(s, f.detail.A.Contender(), f.detail.B.Contender())
		if p.Tie {
			out += st.Warn.Render("  the rule cannot decide: " + p.Why)
		} else {
			out += st.Muted.Render("  the rule picks " + c.Side(p.WinnerID) + " (" + p.Why + ")")
		}
	}
	return out
}

// confirmView tells exactly what will change before anything is written.
func (f *decideForm) confirmView(st Styles, k keymap.Map, agents []model.Agent, w int) string {
	fs := model.Foresee(f.detail, agents, f.strategy(), f.winner)
	c := f.detail.Conflict
	var b strings.Builder
	b.WriteString(st.Header.Render("Write this decision?") + "\n\n")
	fmt.Fprintf(&b, "  %s becomes %s (%s)\n", safetext.Line(c.ID), st.Bold.Render(string(fs.Status)), f.strategy())
	if f.winner != "" && f.strategy() != model.Synthesis && f.strategy() != model.Dismiss {
		fmt.Fprintf(&b, "  %s prevails\n", safetext.Line(f.winner))
	}
	for _, u := range fs.Superseded {
		fmt.Fprintf(&b, "  %s becomes %s\n", safetext.Line(u), st.Warn.Render("superseded"))
	}
	if fs.NewUnit {
		b.WriteString("  a new synthesis unit is created, elaborating both\n")
	}
	b.WriteString(f.unsettledLine(st))
	if f.strategy() == model.Dismiss {
		b.WriteString("  both units stay active\n")
	}
	told := "  notified: " + safetext.Line(strings.Join(fs.Notified, ", "))
	if f.offline {
		told = "  will notify " + safetext.Line(strings.Join(fs.Notified, ", ")) + " when applied"
	}
	b.WriteString(strings.Join(wrapLines(told, w), "\n") + "\n")
	b.WriteString(strings.Join(wrapLines("  rationale: "+safetext.Line(strings.TrimSpace(f.rationale.Value())), w), "\n") + "\n")
	b.WriteString("\n" + confirmPrompt(st, k, "write it"))
	return b.String()
}

// decideScreen is the decision form on the open conflict.
type decideScreen struct{}

func (decideScreen) key(m *Model, msg tea.KeyPressMsg) tea.Cmd { return m.decideKey(msg) }
func (decideScreen) help(m *Model) []key.Binding               { return m.decideHelp() }
func (decideScreen) typing() bool                              { return true }

func (decideScreen) place(m *Model) keymap.Context {
	f := m.conflict.decide
	if f == nil {
		return keymap.InStrategy
	}
	return formPlace(&f.submission, f.focus)
}

func (decideScreen) view(m *Model, w, h int) string {
	f := m.conflict.decide
	if f == nil {
		return ""
	}
	text, focus := f.view(m.styles, m.keys, m.agents, w, m.pendingLine())
	return window(m.styles, text, focus, h, " · "+keyOf(m.keys.Next)+" moves through the form")
}

func (decideScreen) update(m *Model, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if f := m.conflict.decide; f != nil {
		f.rationale, cmd = f.rationale.Update(msg)
	}
	return cmd
}
