package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/textarea"
	"github.com/charmbracelet/x/ansi"
)

// field is a part of a form that has the keyboard.
type field int

const (
	fieldStrategy field = iota
	fieldWinner
	fieldRationale
	fieldSynthesis
)

// decideForm is the decision being written for one conflict. It outlives
// refusals and leaving the form: what was typed stays until it is written.
type decideForm struct {
	detail     model.ConflictDetail
	choices    []model.Choice
	sel        int
	winner     string
	rationale  textarea.Model
	synthesis  textarea.Model
	focus      field
	preview    string // rendered synthesis, when previewing
	confirming bool
	busy       bool
	refusal    string
	result     *model.MergeResponse
}

func newTextarea(placeholder string, dark bool) textarea.Model {
	t := textarea.New()
	t.SetStyles(textarea.DefaultStyles(dark))
	t.Placeholder = placeholder
	t.ShowLineNumbers = false
	t.CharLimit = 0
	t.MaxHeight = 0
	return t
}

func newDecideForm(d model.ConflictDetail, me model.Agent, dark bool) *decideForm {
	f := &decideForm{
		detail:    d,
		choices:   model.Choices(me, d),
		rationale: newTextarea("Why this decision? (required; it goes in the audit trail)", dark),
		synthesis: newTextarea("The new unit's text, in markdown. ctrl+e opens $EDITOR with both units.", dark),
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

// fields lists the parts of the form the chosen strategy uses.
func (f *decideForm) fields() []field {
	out := []field{fieldStrategy}
	if f.strategy().NeedsWinner() || f.strategy() == model.LastWriteWins {
		out = append(out, fieldWinner)
	}
	out = append(out, fieldRationale)
	if f.strategy() == model.Synthesis {
		out = append(out, fieldSynthesis)
	}
	return out
}

// cycle moves the focus to the next (or previous) field.
func (f *decideForm) cycle(delta int) {
	fs := f.fields()
	i := 0
	for j, x := range fs {
		if x == f.focus {
			i = j
		}
	}
	f.focus = fs[(i+delta+len(fs))%len(fs)]
	f.rationale.Blur()
	f.synthesis.Blur()
	switch f.focus {
	case fieldRationale:
		f.rationale.Focus()
	case fieldSynthesis:
		f.synthesis.Focus()
	}
}

// typing reports whether a text box has the keyboard.
func (f *decideForm) typing() bool { return f.focus == fieldRationale || f.focus == fieldSynthesis }

// request builds the MERGE request, or says what is missing.
func (f *decideForm) request() (model.MergeRequest, string) {
	s := f.strategy()
	if err := f.choices[f.sel].Err; err != nil {
		return model.MergeRequest{}, err.Message
	}
	req := model.MergeRequest{ConflictID: f.detail.Conflict.ID, Strategy: s, ExpectedVersion: f.detail.Conflict.Version,
		Resolution: model.MergeResolution{Rationale: strings.TrimSpace(f.rationale.Value())}}
	if req.Resolution.Rationale == "" {
		return req, "Write a rationale first: it is required."
	}
	if s.NeedsWinner() || (s == model.LastWriteWins && f.winner != "") {
		if f.winner == "" {
			return req, "Pick the winner: A or B."
		}
		req.Resolution.WinnerID = model.Ptr(f.winner)
	}
	if s == model.Synthesis {
		text := strings.TrimSpace(f.synthesis.Value())
		if text == "" {
			return req, "Write the synthesis text first."
		}
		req.Resolution.Synthesis = &text
	}
	return req, ""
}

// foresee says what the decision will change.
func (f *decideForm) foresee(agents []model.Agent) model.Foresight {
	return model.Foresee(f.detail, agents, f.strategy(), f.winner)
}

func (f *decideForm) view(st Styles, k KeyMap, agents []model.Agent, w, h int) string {
	var b strings.Builder
	c := f.detail.Conflict
	b.WriteString(st.Title.Render("Decide "+safetext.Line(c.ID)) + st.Muted.Render(fmt.Sprintf(" · %s · version %d", c.Status, c.Version)) + "\n")
	b.WriteString(ansi.Truncate(sidesLine(st, f.detail), w, "…") + "\n\n")
	if f.result != nil {
		b.WriteString(resultView(st, *f.result))
		b.WriteString("\n\n" + st.Muted.Render("esc returns to the queue"))
		return b.String()
	}
	if f.confirming {
		b.WriteString(confirmView(st, f, agents))
		return b.String()
	}
	b.WriteString(f.label(st, fieldStrategy, "Strategy") + "\n")
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
	if contains(f.fields(), fieldWinner) {
		b.WriteString("\n" + f.label(st, fieldWinner, "Winner") + "  " + f.winnerView(st) + "\n")
	}
	b.WriteString("\n" + f.label(st, fieldRationale, "Rationale") + "\n")
	b.WriteString(f.rationale.View() + "\n")
	if f.strategy() == model.Synthesis {
		b.WriteString("\n" + f.label(st, fieldSynthesis, "Synthesis") + st.Muted.Render("  ctrl+e $EDITOR · ctrl+p preview") + "\n")
		if f.preview != "" {
			b.WriteString(f.preview + "\n")
		} else {
			b.WriteString(f.synthesis.View() + "\n")
		}
	}
	if f.refusal != "" {
		b.WriteString("\n" + st.Error.Render(safetext.Block(f.refusal)) + "\n")
	}
	if f.busy {
		b.WriteString("\n" + st.Muted.Render("Writing…") + "\n")
	}
	return b.String()
}

// layout sizes the text boxes for a w × h area.
func (f *decideForm) layout(w, h int) {
	f.rationale.SetWidth(min(w, 100))
	f.rationale.SetHeight(4)
	f.synthesis.SetWidth(min(w, 100))
	f.synthesis.SetHeight(max(3, h-20-len(f.choices)))
}

func (f *decideForm) label(st Styles, fl field, name string) string {
	if f.focus == fl {
		return st.Key.Render("▍" + name)
	}
	return st.Label.Render(" " + name)
}

func (f *decideForm) winnerView(st Styles) string {
	opt := func(id, name string) string {
		t := fmt.Sprintf(" %s %s ", name, safetext.Line(id))
		if f.winner == id {
			return st.Selected.Render(sideStyle(st, name).Render(t))
		}
		return st.Muted.Render(t)
	}
	c := f.detail.Conflict
	out := opt(c.UnitA, "A") + " " + opt(c.UnitB, "B") + st.Muted.Render("  a/b or ←/→")
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
func confirmView(st Styles, f *decideForm, agents []model.Agent) string {
	fs := f.foresee(agents)
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
	if f.strategy() == model.Dismiss {
		b.WriteString("  both units stay active\n")
	}
	fmt.Fprintf(&b, "  notified: %s\n", safetext.Line(strings.Join(fs.Notified, ", ")))
	fmt.Fprintf(&b, "  rationale: %s\n", safetext.Line(strings.TrimSpace(f.rationale.Value())))
	b.WriteString("\n" + st.Key.Render("y") + " write it   " + st.Key.Render("N") + " go back (default)")
	return b.String()
}

func resultView(st Styles, r model.MergeResponse) string {
	var b strings.Builder
	if o := r.Offline; o != nil {
		b.WriteString(st.Success.Render("Recorded.") + " The field is read-only, so the decision went to " +
			safetext.Line(o.File) + " (message " + safetext.Line(o.MessageID) + ").\n" +
			"  Run `arbiter apply " + safetext.Line(o.File) + " --db LIVE` to make it; there " +
			safetext.Line(r.Conflict.ID) + " will become " + st.Bold.Render(string(r.Status)) + ":\n")
	} else {
		b.WriteString(st.Success.Render("Written.") + " " + safetext.Line(r.Conflict.ID) + " is now " + st.Bold.Render(string(r.Status)) + "\n")
	}
	if len(r.SideEffects.SupersededUnits) > 0 {
		b.WriteString("  superseded: " + safetext.Line(strings.Join(r.SideEffects.SupersededUnits, ", ")) + "\n")
	}
	if r.SideEffects.NewUnitID != nil {
		b.WriteString("  new unit: " + safetext.Line(*r.SideEffects.NewUnitID) + "\n")
	}
	b.WriteString("  notified: " + safetext.Line(strings.Join(r.SideEffects.NotifiedAgents, ", ")))
	return b.String()
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// sidesLine names both units and their authors, for a form's header.
func sidesLine(st Styles, d model.ConflictDetail) string {
	side := func(name string, sd model.Side) string {
		return sideStyle(st, name).Render(name) + " " + safetext.Line(sd.Unit.ID) +
			st.Muted.Render(" by "+safetext.Line(sd.Unit.Source.AgentID))
	}
	return side("A", d.A) + st.Muted.Render("  vs  ") + side("B", d.B)
}
