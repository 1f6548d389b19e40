package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The help screen shows every binding, in the table's columns; any key
// closes it. The footer's short help is each screen's own.

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
	return strings.Join(rows, "\n\n")
}

// helpKey closes the help: any key does.
func (m *Model) helpKey(tea.KeyPressMsg) tea.Cmd {
	m.fullHelp = false
	return nil
}

// shortHelpKeys are the bindings the footer shows for the screen in front.
func (m *Model) shortHelpKeys() []key.Binding {
	switch m.screen {
	case screenQueue:
		return m.queueHelp()
	case screenConflict:
		return m.conflictHelp()
	case screenDecide:
		return m.decideHelp()
	case screenVote:
		return m.voteHelp()
	}
	return nil
}
