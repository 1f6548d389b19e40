package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"arbiter/model"
)

func (m *Model) queueKey(msg tea.KeyPressMsg) tea.Cmd {
	q := &m.queue
	k := m.keys
	if q.editing {
		switch {
		case key.Matches(msg, k.Back):
			q.editing, q.search = false, ""
			q.filter.SetValue("")
			q.filter.Blur()
			return m.reloadQueue()
		case msg.String() == "enter":
			q.editing = false
			q.filter.Blur()
			return nil
		}
		var cmd tea.Cmd
		q.filter, cmd = q.filter.Update(msg)
		if q.filter.Value() != q.search {
			q.search = q.filter.Value()
			return tea.Batch(cmd, m.reloadQueue())
		}
		return cmd
	}
	rows := m.queueRows()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.fullHelp = true
	case key.Matches(msg, k.Up):
		q.move(-1, rows)
	case key.Matches(msg, k.Down):
		q.move(1, rows)
		return m.maybeMore()
	case key.Matches(msg, k.Top):
		q.move(-len(q.rows), rows)
	case key.Matches(msg, k.Bottom):
		q.move(len(q.rows), rows)
		return m.maybeMore()
	case key.Matches(msg, k.PageUp):
		q.move(-rows, rows)
	case key.Matches(msg, k.PageDown):
		q.move(rows, rows)
		return m.maybeMore()
	case key.Matches(msg, k.Filter):
		q.editing = true
		q.filter.SetValue(q.search)
		return q.filter.Focus()
	case key.Matches(msg, k.Back):
		if q.search != "" {
			q.search = ""
			q.filter.SetValue("")
			return m.reloadQueue()
		}
	case key.Matches(msg, k.Sort):
		if q.sort == model.SortAge {
			q.sort = model.SortType
		} else {
			q.sort = model.SortAge
		}
		return m.reloadQueue()
	case key.Matches(msg, k.AllStatuses):
		q.all = !q.all
		return m.reloadQueue()
	case key.Matches(msg, k.Refresh):
		return m.reloadQueue()
	case key.Matches(msg, k.Open):
		if s, ok := q.selected(); ok {
			return m.open(s.ID)
		}
	}
	return nil
}

// open shows a conflict; its panes fill as the field answers.
func (m *Model) open(id string) tea.Cmd {
	if m.conflict.id != id {
		m.conflict = newConflictView(id)
	}
	m.screen = screenConflict
	m.conflict.layout(m.width, max(1, m.height-2))
	return loadDetail(m.svc, id)
}

func (m *Model) conflictKey(msg tea.KeyPressMsg) tea.Cmd {
	v := &m.conflict
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.fullHelp = true
	case key.Matches(msg, k.Back):
		m.screen = screenQueue
		v.notice = ""
		return m.reloadQueue()
	case key.Matches(msg, k.NextPane):
		v.focus = 1 - v.focus
	case key.Matches(msg, k.Up):
		v.scroll(func(p *scroller) { p.ScrollUp(1) })
	case key.Matches(msg, k.Down):
		v.scroll(func(p *scroller) { p.ScrollDown(1) })
	case key.Matches(msg, k.PageUp):
		v.scroll(func(p *scroller) { p.PageUp() })
	case key.Matches(msg, k.PageDown):
		v.scroll(func(p *scroller) { p.PageDown() })
	case key.Matches(msg, k.Top):
		v.scroll(func(p *scroller) { p.GotoTop() })
	case key.Matches(msg, k.Bottom):
		v.scroll(func(p *scroller) { p.GotoBottom() })
	case key.Matches(msg, k.SyncScroll):
		v.sync = !v.sync
		if v.sync {
			off := v.panes[v.focus].YOffset()
			v.panes[0].SetYOffset(off)
			v.panes[1].SetYOffset(off)
			return m.say("Scrolling both panes together (L to unlock).")
		}
		return m.say("Panes scroll on their own.")
	case key.Matches(msg, k.Diff):
		v.diff, v.raw, v.history = !v.diff, false, false
		m.fillPanes()
	case key.Matches(msg, k.Raw):
		v.raw, v.diff, v.history = !v.raw, false, false
		m.fillPanes()
	case key.Matches(msg, k.History):
		v.history, v.diff, v.raw = !v.history, false, false
		m.fillPanes()
	case key.Matches(msg, k.Decide):
		return m.startDecide()
	case key.Matches(msg, k.Vote):
		return m.startVote()
	}
	return nil
}

func (m *Model) startDecide() tea.Cmd {
	v := &m.conflict
	if why := m.canDecide(); why != "" {
		return m.say("Deciding is disabled: " + why + ".")
	}
	if !v.loaded {
		return nil
	}
	if v.detail.Conflict.Status == model.StatusPendingVote {
		return m.say(v.id + " is put to a vote: press v to vote.")
	}
	if v.detail.Conflict.Status == model.StatusResolved {
		return m.say(v.id + " is already resolved.")
	}
	f := m.drafts[v.id]
	if f == nil || f.result != nil {
		f = newDecideForm(v.detail, m.me, m.styles.Theme.Dark)
		m.drafts[v.id] = f
	} else if f.detail.Conflict.Version != v.detail.Conflict.Version {
		f.refresh(v.detail, m.me)
	}
	m.screen = screenDecide
	f.layout(m.width, max(1, m.height-2))
	return nil
}

func (m *Model) startVote() tea.Cmd {
	v := &m.conflict
	if why := m.canDecide(); why != "" {
		return m.say("Voting is disabled: " + why + ".")
	}
	if !v.loaded {
		return nil
	}
	if v.detail.Conflict.Status != model.StatusPendingVote {
		return m.say(v.id + " is not put to a vote; press d to decide it.")
	}
	if !v.detail.Policy.MayVote(m.me) {
		return m.say("You may not vote in this field (it needs authority " +
			itoa(v.detail.Policy.VoterMinAuthority) + rolesOf(v.detail.Policy) + ").")
	}
	if m.vote == nil || m.vote.detail.Conflict.ID != v.id || m.vote.result != nil {
		m.vote = newVoteForm(v.detail, m.me, m.styles.Theme.Dark)
	}
	m.screen = screenVote
	m.vote.layout(m.width, max(1, m.height-2))
	return nil
}
