package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The help screen shows every binding, in the table's columns, over the
// screen it was opened on; any key closes it. The footer's short help is
// each screen's own.

// helpScreen is the help, over the screen under it.
type helpScreen struct{ under screen }

func (helpScreen) key(m *Model, _ tea.KeyPressMsg) tea.Cmd { m.pop(); return nil }
func (h helpScreen) help(m *Model) []key.Binding           { return h.under.help(m) }
func (helpScreen) view(m *Model, _, _ int) string          { return m.helpView() }
func (helpScreen) update(*Model, tea.Msg) tea.Cmd          { return nil }
func (helpScreen) typing() bool                            { return true }

// helpView lays the columns side by side, in as many rows as the width
// needs.
func (m *Model) helpView() string {
	h := m.help
	h.SetWidth(0) // measure each row whole
	k := m.helpKeys()
	cols := k.FullHelp()
	var rows []string
	for len(cols) > 0 {
		n := len(cols)
		for n > 1 && lipgloss.Width(h.FullHelpView(cols[:n])) > m.width {
			n--
		}
		rows = append(rows, m.help.FullHelpView(cols[:n]))
		cols = cols[n:]
	}
	return strings.Join(rows, "\n\n") + "\n\n" + strings.Join(wrapLines(m.legend(), m.width), "\n")
}

// legend says what the queue's row marks mean.
func (m *Model) legend() string {
	st := m.styles
	mark := func(sign, what string) string { return st.Key.Render(sign) + " " + st.Muted.Render(what) }
	return strings.Join([]string{st.Label.Render("Rows:"), mark("●", "yours to act on ·"), mark("✓", "marked ·"),
		mark("⋯", "decided, in its undo window ·"), mark("↷", "decided in the decisions file ·"),
		mark("!", "due soon (DUE)")}, " ")
}

// shortHelpKeys are the bindings the footer shows for the screen in front.
func (m *Model) shortHelpKeys() []key.Binding { return m.top().help(m) }
