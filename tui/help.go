package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The help screen shows every binding, in the table's columns; any key
// closes it. The footer's short help is each screen's own.

func (m *Model) helpView() string { return m.help.FullHelpView(m.keys.FullHelp()) }

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
