package tui

import "charm.land/bubbles/v2/key"

// shortHelpKeys are the bindings the footer shows for the screen in front.
func (m *Model) shortHelpKeys() []key.Binding {
	k := m.keys
	switch m.screen {
	case screenQueue:
		if m.queue.editing {
			return []key.Binding{key.NewBinding(key.WithHelp("enter", "keep filter")), k.Back}
		}
		return []key.Binding{k.Up, k.Down, k.Open, k.Filter, k.Sort, k.AllStatuses, k.Help, k.Quit}
	case screenConflict:
		return []key.Binding{m.decisionKey(k.Decide), m.decisionKey(k.Vote), k.NextPane, k.Diff, k.History, k.SyncScroll, k.Back, k.Help}
	case screenDecide:
		f := m.drafts[m.conflict.id]
		if f != nil && f.confirming {
			return []key.Binding{k.Confirm, k.Cancel}
		}
		b := []key.Binding{k.Next, k.Submit, k.Back}
		if f != nil && f.strategy() == "synthesis" {
			b = append(b, k.Editor, k.Preview)
		}
		return b
	case screenVote:
		if m.vote != nil && m.vote.confirming {
			return []key.Binding{k.Confirm, k.Cancel}
		}
		return []key.Binding{k.Next, k.Submit, k.Back}
	}
	return nil
}

// decisionKey shows a decision binding, marked when decisions are
// disabled so the reason is one key press away.
func (m *Model) decisionKey(b key.Binding) key.Binding {
	if m.canDecide() != "" {
		h := b.Help()
		b.SetHelp(h.Key, h.Desc+" (read-only)")
	}
	return b
}

func (m *Model) fullHelpKeys() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Open, k.Filter, k.Sort, k.AllStatuses, k.Refresh},
		{k.NextPane, k.SyncScroll, k.Diff, k.Raw, k.History},
		{k.Decide, k.Vote, k.Submit, k.Editor, k.Preview, k.Back, k.Quit, k.ForceQuit},
	}
}
