package tui

import (
	"slices"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/internal/threeway"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A synthesis in a few keys: synthesize opens the decision form on the
// synthesis strategy with the suggestion loaded (suggest.go); take A and
// take B settle the next alternative the suggestion left with that
// side's text; once none is left, the rationale has the keyboard.

// startSynthesis opens the decision form of the conflict on screen on
// the synthesis strategy, started from the suggestion unless something
// was typed in it already.
func (m *Model) startSynthesis() tea.Cmd {
	c := m.conflict.openConflict
	if why := m.notYours(); why != "" {
		return m.say(why)
	}
	f := c.decide
	var back tea.Cmd
	if f == nil {
		f = newDecideForm(c, m.me, m.styles.Theme.Dark, m.keys)
		c.decide = f
		back = m.takeUpDraft(c, model.DraftDecide)
	} else {
		f.refresh(m.me)
	}
	if why := f.chooseSynthesis(); why != "" {
		return m.say("No synthesis on " + c.id + ": " + why + ".")
	}
	m.push(decideScreen{})
	f.layout(m.width, m.bodyHeight())
	return tea.Batch(m.checkDraft(f), m.startSuggestionUnlessTyped(f), back)
}

// startSuggestionUnlessTyped starts the synthesis from the suggestion,
// unless the person typed one of their own, which then has the keyboard.
func (m *Model) startSuggestionUnlessTyped(f *decideForm) tea.Cmd {
	if typed := strings.TrimSpace(f.synthesis.Value()); typed == "" || typed == strings.TrimSpace(f.suggest.text) {
		return m.startSuggestion(f)
	}
	f.focusOn(focusSynthesis)
	return nil
}

// chooseSynthesis selects the synthesis strategy, or says why the
// person may not choose it.
func (f *decideForm) chooseSynthesis() string {
	i := slices.IndexFunc(f.choices, func(c model.Choice) bool { return c.Strategy == model.Synthesis })
	switch {
	case i < 0:
		return "the field offers no synthesis"
	case f.choices[i].Err != nil:
		return safetext.Line(f.choices[i].Err.Message)
	}
	f.sel = i
	f.pickDefaultWinner()
	return ""
}

// focusOn gives part fl of the form the keyboard.
func (f *decideForm) focusOn(fl focusArea) {
	f.focus = fl
	f.rationale.Blur()
	f.synthesis.Blur()
	switch fl {
	case focusRationale:
		f.rationale.Focus()
	case focusSynthesis:
		f.synthesis.Focus()
	}
}

// takeKey settles the synthesis's next alternative with the side the key
// names; ok is false for every other key, and for these keys when the
// synthesis holds no alternative.
func (m *Model) takeKey(f *decideForm, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	var side byte
	switch {
	case key.Matches(msg, k.TakeA):
		side = 'A'
	case key.Matches(msg, k.TakeB):
		side = 'B'
	default:
		return nil, false
	}
	if f.strategy() != model.Synthesis || f.suggest.unsettled == 0 {
		if f.focus == focusRationale || f.focus == focusSynthesis {
			return nil, false // the text box's own use of the key (a word back)
		}
		f.suggest.note = "No alternative to settle: " + keyOf(k.TakeA) + " and " + keyOf(k.TakeB) +
			" settle the ones the suggestion (" + keyOf(k.Suggest) + ") leaves."
		return nil, true
	}
	text, ok := threeway.Settle(f.synthesis.Value(), side)
	if !ok {
		f.suggest.note = "The alternative left has lost a marker line: settle it by hand."
		return nil, true
	}
	f.synthesis.SetValue(text)
	f.synthesis.MoveToBegin()
	f.preview = ""
	f.recount()
	if n := f.suggest.unsettled; n > 0 {
		f.suggest.note = "Took " + string(side) + "'s text; " + alternatives(n) + " left."
		return nil, true
	}
	f.suggest.note = "Took " + string(side) + "'s text: no alternative is left."
	if strings.TrimSpace(f.rationale.Value()) == "" {
		f.suggest.note += " Now say why."
		f.focusOn(focusRationale)
	}
	return nil, true
}
