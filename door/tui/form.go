package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/keymap"
	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// What the decide and vote forms share: their parts, and what happens
// once they are sent.

// focusArea is the part of a form that has the keyboard.
type focusArea int

const (
	focusStrategy focusArea = iota
	focusWinner
	focusRationale
	focusSynthesis
)

// submission is a form's way to the field: asked to confirm, then held
// in the undo window and written (busy) while the person is back on the
// queue — as after a quick decision —, then dropped once written, or
// kept with the refusal.
type submission struct {
	confirming bool
	busy       bool
	refusal    string
}

// step is what a key press does to a form once it is sent or asking.
type step int

const (
	stepEdit step = iota // nothing is sent: the key is the form's
	stepNone             // the key does nothing
	stepSend             // confirmed: send the form
)

// formPlace is where a form's keys act: its writing, its question, or
// the part of it that has the keyboard.
func formPlace(s *submission, focus focusArea) keymap.Context {
	switch {
	case s.busy:
		return keymap.InBusy
	case s.confirming:
		return keymap.InConfirm
	case focus == focusStrategy:
		return keymap.InStrategy
	case focus == focusWinner:
		return keymap.InWinner
	}
	return keymap.InText
}

// submit checks the form: it asks to confirm, or shows what is missing.
func (s *submission) submit(problem string) {
	s.refusal, s.confirming = problem, problem == ""
}

// key says what a key press means while the form asks to confirm or is
// being written. Confirm sends it; any other key answers No.
func (s *submission) key(msg tea.KeyPressMsg, k keymap.Map) step {
	switch {
	case s.busy:
		return stepNone
	case s.confirming:
		s.confirming = false
		if key.Matches(msg, k.Confirm) {
			s.busy, s.refusal = true, ""
			return stepSend
		}
		return stepNone
	}
	return stepEdit
}

// answer takes the field's answer; a refusal is said after refused ("Not
// written: "). It reports whether anything was written.
func (s *submission) answer(err error, refused string) bool {
	s.busy = false
	if err != nil {
		s.refusal = refused + plainError(err)
		return false
	}
	return true
}

// noticeView says, above a form, that its conflict changed while on
// screen.
func (c *openConflict) noticeView(st Styles, w int) string {
	if c.notice == "" {
		return ""
	}
	return strings.Join(wrapLines(st.Warn.Render("⚠ "+safetext.Line(c.notice)), w), "\n") + "\n\n"
}

// statusView says what went wrong, wrapped to w, or that the form is
// being written.
func (s *submission) statusView(st Styles, w int) string {
	out := ""
	if s.refusal != "" {
		out += "\n" + strings.Join(wrapLines(st.Error.Render(safetext.Block(s.refusal)), w), "\n") + "\n"
	}
	if s.busy {
		out += "\n" + st.Muted.Render("Writing…") + "\n"
	}
	return out
}

// confirmPrompt is the question's answers: "y write it   N go back".
func confirmPrompt(st Styles, k keymap.Map, yes string) string {
	return st.Key.Render(keyOf(k.Confirm)) + " " + yes + "   " + st.Key.Render(defaultAnswer(k.Cancel)) + " go back (default)"
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

// chooseSide reads a key press on the choice between A and B: the id of
// the unit it chooses, or "".
func chooseSide(msg tea.KeyPressMsg, k keymap.Map, c model.Conflict) string {
	switch {
	case key.Matches(msg, k.ChooseA):
		return c.UnitA
	case key.Matches(msg, k.ChooseB):
		return c.UnitB
	}
	return ""
}

// pickSide reads a key press on a form's choice of A or B: the side it
// chooses (chosen when none), and whether it is text that chooses no side
// — which then belongs to the rationale: the form takes the keyboard
// there and types it, so a rationale begun here goes where it is written
// and its a's and b's never flip the side.
func pickSide(msg tea.KeyPressMsg, k keymap.Map, c model.Conflict, chosen string) (string, bool) {
	if id := chooseSide(msg, k, c); id != "" {
		return id, false
	}
	return chosen, msg.Text != ""
}

// strayNote says where typing on the choice of A or B went.
func strayNote(k keymap.Map) string {
	return "What you typed went to the rationale: on the choice of the side only " + sidesHint(k) + " act (" +
		keyOf(k.Prev) + " goes back to it)."
}

// areaLabel names a part of a form, marked when it has the keyboard.
func areaLabel(st Styles, focused bool, name string) string {
	if focused {
		return st.Key.Render("▍" + name)
	}
	return st.Label.Render(" " + name)
}

// sidesView shows both units as a choice, chosen marked.
func sidesView(st Styles, c model.Conflict, chosen string) string {
	opt := func(id, name string) string {
		t := fmt.Sprintf(" %s %s ", name, safetext.Line(id))
		if chosen == id {
			return st.Selected.Render(sideStyle(st, name).Render(t))
		}
		return st.Muted.Render(t)
	}
	return opt(c.UnitA, "A") + " " + opt(c.UnitB, "B")
}

// sidesLine names both units and their authors, for a form's header.
func sidesLine(st Styles, d model.ConflictDetail) string {
	side := func(name string, sd model.Side) string {
		return sideStyle(st, name).Render(name) + " " + safetext.Line(sd.Unit.ID) +
			st.Muted.Render(" by "+safetext.Line(sd.Unit.Source.AgentID))
	}
	return side("A", d.A) + st.Muted.Render("  vs  ") + side("B", d.B)
}
