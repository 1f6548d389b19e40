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

// submission is a form's way to the field: asked to confirm, written
// (busy), then refused, or answered with a result of type R.
type submission[R any] struct {
	confirming bool
	busy       bool
	refusal    string
	result     *R
}

// step is what a key press does to a form once it is sent or asking.
type step int

const (
	stepEdit  step = iota // nothing is sent: the key is the form's
	stepNone              // the key does nothing
	stepSend              // confirmed: send the form
	stepLeave             // the answer was read: leave the form
)

// submit checks the form: it asks to confirm, or shows what is missing.
func (s *submission[R]) submit(problem string) {
	s.refusal, s.confirming = problem, problem == ""
}

// key says what a key press means while the form asks to confirm, is
// being written or shows its answer. Confirm sends it; any other key
// answers No. leave are the bindings that leave the answer.
func (s *submission[R]) key(msg tea.KeyPressMsg, k keymap.Map, leave ...key.Binding) step {
	switch {
	case s.result != nil:
		if key.Matches(msg, leave...) {
			return stepLeave
		}
		return stepNone
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
func (s *submission[R]) answer(resp R, err error, refused string) bool {
	s.busy = false
	if err != nil {
		s.refusal = refused + plainError(err)
		return false
	}
	s.result = &resp
	return true
}

// answered reloads what a form's answer changed: the conflict, and the
// queue when something was written.
func (m *Model) answered(conflictID string, written bool) tea.Cmd {
	if !written {
		return loadDetail(m.ctx, m.svc, conflictID)
	}
	return tea.Batch(m.reloadQueue(), loadDetail(m.ctx, m.svc, conflictID))
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
func (s *submission[R]) statusView(st Styles, w int) string {
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

// leaveHint says how to leave a form's answer.
func leaveHint(st Styles, k keymap.Map, to string) string {
	return st.Muted.Render(keyOf(k.Back) + " returns to " + to)
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
