package tui

import (
	"fmt"
	"strings"

	"arbiter/internal/keymap"
	"arbiter/internal/threeway"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The decision form's synthesis can start from the suggested synthesis
// (internal/threeway): what only one side changed taken, what both
// changed differently left as marked alternatives. The form counts the
// alternatives left as the person edits, and writing a synthesis that
// still holds some takes a second press of submit.

// suggestState is the decision form's use of the suggestion.
type suggestState struct {
	// unsettled is how many alternatives the synthesis holds.
	unsettled int
	// text is the suggestion as it was put in the synthesis ("" before).
	text string
	// waiting: the comparison is being made.
	waiting bool
	// replacing: the person was asked whether the suggestion replaces
	// their text; markers, whether to write the synthesis with its
	// alternatives. The next key answers.
	replacing, markers bool
	// note is what the form says about the suggestion now.
	note string
}

// suggestKey handles the suggestion key, and submit while alternatives
// are left; ok is false for every other key. Any key answers a question
// the form asked: only the key that asked it again goes on.
func (m *Model) suggestKey(f *decideForm, msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := m.keys
	s := &f.suggest
	replacing, markers := s.replacing, s.markers
	s.replacing, s.markers = false, false
	if !s.waiting {
		s.note = ""
	}
	if f.strategy() != model.Synthesis && key.Matches(msg, k.Suggest) {
		// The suggestion is a synthesis: asking for it chooses one.
		if why := f.chooseSynthesis(); why != "" {
			return m.say("No synthesis: " + why + "."), true
		}
		return tea.Batch(m.checkDraft(f), m.startSuggestionUnlessTyped(f)), true
	}
	if f.strategy() != model.Synthesis {
		return nil, false
	}
	switch {
	case key.Matches(msg, k.Suggest):
		typed := strings.TrimSpace(f.synthesis.Value())
		if typed != "" && typed != strings.TrimSpace(s.text) && !replacing {
			s.replacing = true
			s.note = "Replace what you wrote with the suggestion? Press " + keyOf(k.Suggest) +
				" again to replace it; any other key keeps your text."
			return nil, true
		}
		return m.startSuggestion(f), true
	case key.Matches(msg, k.Submit) && s.unsettled > 0 && !markers:
		if _, problem := f.request(); problem != "" || f.check != "" {
			return nil, false // the form says what is missing first
		}
		s.markers = true
		s.note = fmt.Sprintf("The synthesis still holds %s between %s and %s lines. Press %s again to write it with them as they are, or settle them first.",
			alternatives(s.unsettled), threeway.MarkerA, threeway.MarkerB, keyOf(k.Submit))
		return nil, true
	}
	return nil, false
}

// startSuggestion fills the synthesis with the suggestion: at once when
// the screen compared the whole texts already, else once a command has.
func (m *Model) startSuggestion(f *decideForm) tea.Cmd {
	m.three.init()
	if c := m.three.cmps[cmpKey{f.detail.Conflict.ID, f.detail.Conflict.Version}]; c != nil && !c.cut {
		f.applySuggestion(c)
		return nil
	}
	f.suggest.waiting = true
	f.suggest.note = "Comparing the units…"
	return compareWhole(m.ctx, m.svc, f.detail)
}

// suggestionArrived takes a comparison made for the form's conflict.
func (f *decideForm) suggestionArrived(c *comparison, err error) {
	switch {
	case err != nil:
		f.suggest.waiting = false
		f.suggest.note = "No suggestion: " + plainError(err)
	case !c.cut: // a view's comparison of the texts' start will not do
		f.suggest.waiting = false
		f.applySuggestion(c)
	}
}

// applySuggestion puts the suggestion in the synthesis and gives it the
// keyboard.
func (f *decideForm) applySuggestion(c *comparison) {
	text, n := c.c.Suggest()
	f.synthesis.SetValue(text)
	f.synthesis.MoveToBegin()
	f.preview = ""
	s := &f.suggest
	s.text, s.unsettled = f.synthesis.Value(), n
	s.note = "Started from the suggestion: what only one side changed is taken."
	if !c.c.ThreeWay {
		s.note = "Started from the suggestion: A and B revise no unit in common, so it keeps what they share."
	}
	if n > 0 {
		s.note += fmt.Sprintf(" Settle %s: keep one side of each (or write your own) and delete the %s, %s and %s lines.",
			alternatives(n), threeway.MarkerA, threeway.MarkerSep, threeway.MarkerB)
	}
	f.focus = focusSynthesis
	f.rationale.Blur()
	f.synthesis.Focus()
}

// recount counts the alternatives left in the synthesis.
func (f *decideForm) recount() { f.suggest.unsettled = threeway.Unsettled(f.synthesis.Value()) }

func alternatives(n int) string {
	if n == 1 {
		return "1 alternative"
	}
	return fmt.Sprintf("%d alternatives", n)
}

// synthesisHints follow the synthesis field's label: its keys, and how
// many alternatives are left to settle.
func (f *decideForm) synthesisHints(st Styles, k keymap.Map) string {
	out := st.Muted.Render("  " + helpOf(k.Editor) + " · " + helpOf(k.Preview) + " · " + helpOf(k.Suggest))
	switch n := f.suggest.unsettled; {
	case n > 0:
		out += "  " + st.Warn.Render("⚑ "+alternatives(n)+" to settle") +
			st.Muted.Render(" ("+keyOf(k.TakeA)+" takes A's, "+keyOf(k.TakeB)+" B's)")
	case f.suggest.text != "":
		out += "  " + st.Success.Render("✓ no alternatives left")
	}
	return out
}

// suggestNote is what the form says about the suggestion, under the
// synthesis: a question, or what it did.
func (f *decideForm) suggestNote(st Styles, w int) string {
	s := f.suggest
	if s.note == "" {
		return ""
	}
	style := st.Muted
	if s.replacing || s.markers {
		style = st.Warn
	}
	return strings.Join(wrapLines(style.Render(s.note), w), "\n") + "\n"
}

// unsettledLine is the confirmation's line on alternatives left.
func (f *decideForm) unsettledLine(st Styles) string {
	if f.strategy() != model.Synthesis || f.suggest.unsettled == 0 {
		return ""
	}
	return "  " + st.Warn.Render("the synthesis is written with "+alternatives(f.suggest.unsettled)+" unsettled, markers and all") + "\n"
}
