package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Update handles one message, then prepares what the next frame shows
// so that View only assembles it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if drafts := m.watchDrafts(); drafts != nil {
		cmd = tea.Batch(cmd, drafts)
	}
	if more := m.wantPreview(); more != nil {
		cmd = tea.Batch(cmd, more)
	}
	m.prepare()
	return m, cmd
}

// prepare renders the parts of the frame that are costly to draw.
func (m *Model) prepare() {
	if p, ok := m.top().(preparer); ok && m.width > 0 {
		p.prepare(m)
	}
	m.footer = m.footerView()
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if !m.tooSmall() {
			m.keysIgnored = 0
		}
		return m.layout()
	case tea.BackgroundColorMsg:
		m.setTheme(Theme{Dark: msg.IsDark(), NoColor: m.opt.NoColor})
		return m.layout()
	case identityMsg:
		m.me, m.agents, m.policy, m.meErr = msg.me, msg.agents, msg.policy, msg.err
		if m.opt.As != "" {
			return m.loadQueue(firstPage) // then what the field holds of the person's (queueLoaded)
		}
		return nil
	case heldMsg:
		return m.heldArrived(msg)
	case undoneMsg:
		return m.undoneArrived(msg)
	case heldReportMsg:
		return m.heldReported(msg)
	case plansMsg:
		return m.plansArrived(msg)
	case pendingTickMsg:
		return m.pendingTick(msg)
	case pendingDoneMsg:
		return m.pendingDone(msg)
	case pendingCheckedMsg:
		return m.pendingChecked(msg)
	case droppedMsg:
		return m.droppedArrived(msg)
	case reopenedMsg:
		return m.reopened(msg)
	case sweepDueMsg:
		return m.sweep()
	case sweptMsg:
		return m.swept(msg)
	case checkedMsg:
		if f := m.draft(msg.id); f != nil && f.checked == msg.key {
			f.check = msg.refusal
		}
		return nil
	case queueLoadedMsg:
		return m.queueLoaded(msg)
	case detailLoadedMsg:
		return m.detailLoaded(msg)
	case previewLoadedMsg:
		m.previewLoaded(msg)
		return nil
	case statsLoadedMsg:
		return m.statsLoaded(msg)
	case newsMsg:
		return m.newsArrived(msg)
	case toastTickMsg:
		return m.toastTick()
	case inboxLoadedMsg:
		return m.inboxLoaded(msg)
	case inboxMarkedMsg:
		return m.inboxMarked(msg)
	case draftsReadMsg:
		return m.draftsRead(msg)
	case draftDueMsg:
		return m.draftDue(msg)
	case draftSavedMsg:
		return m.draftSaved(msg)
	case renderedMsg:
		return m.storeRendering(msg)
	case threeMsg:
		return m.storeThree(msg)
	case dataChangedMsg:
		m.gone = ""
		cmds := []tea.Cmd{watch(m.ctx, m.svc, msg.version)}
		if msg.version != m.version {
			m.version = msg.version
			cmds = append(cmds, m.reloadQueue(), m.checkPending())
			if m.heldElsewhere || m.heldAsking > 0 {
				cmds = append(cmds, m.heldReport())
			}
			if m.inConflict() {
				cmds = append(cmds, loadDetail(m.ctx, m.svc, m.conflict.id))
			}
			cmds = append(cmds, m.statsFollow())
		}
		return tea.Batch(cmds...)
	case watchTickMsg:
		since := m.version
		if m.gone = msg.gone; m.gone != "" {
			since = -1 // the file back where it was answers at once
		}
		return watch(m.ctx, m.svc, since)
	case editorReadyMsg:
		return m.runEditor(msg)
	case editorDoneMsg:
		return m.editorDone(msg)
	case previewMsg:
		if f := m.draft(msg.id); f != nil {
			f.preview = msg.out
		}
		return nil
	case clickExpiredMsg:
		m.clickExpired(msg)
		return nil
	case flashClearMsg:
		if msg.id == m.flashID && !m.flashKept {
			m.flash = ""
		}
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if m.prompt != nil {
			return nil
		}
	}
	return m.forward(msg)
}

// forward hands other messages (the mouse, cursor blinks) to the prompt
// when it is open, and to the screen in front.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if m.prompt != nil {
		m.prompt.input, cmd = m.prompt.input.Update(msg)
	}
	return tea.Batch(cmd, m.top().update(m, msg))
}

// layout resizes everything for the window and asks for any rendering
// the new size needs.
func (m *Model) layout() tea.Cmd {
	m.help.SetWidth(m.width)
	bodyH := m.bodyHeight()
	m.queue.scrollTo(m.queueRows())
	m.conflict.layout(m.width, bodyH)
	if f := m.conflict.decide; f != nil {
		f.layout(m.width, bodyH)
	}
	if f := m.conflict.vote; f != nil {
		f.layout(m.width, bodyH)
	}
	return m.requestRenders()
}

// requestRenders asks for the markdown of both units at the current size,
// unless the cache already has it.
func (m *Model) requestRenders() tea.Cmd {
	v := &m.conflict
	if !v.loaded || !m.inConflict() {
		return nil
	}
	var cmds []tea.Cmd
	theme := m.styles.Theme.Name()
	for i := range 2 {
		k := v.key(i, theme)
		if _, ok := m.cache[k]; !ok {
			m.cache[k] = formatted{} // requested; filled by renderedMsg
			cmds = append(cmds, renderUnit(m.md, k, v.side(i).Unit.Content, v.panes[i].Height()))
		}
	}
	cmds = append(cmds, m.requestThree())
	m.fillPanes()
	return tea.Batch(cmds...)
}

// maxCached bounds the rendering cache; past it, it starts afresh with
// what is on screen.
const maxCached = 512

// storeRendering keeps a unit's formatted text and shows it. A head comes
// with the rest of the work, which goes on whether or not the unit is
// still on screen, so that the cache never keeps a head without its rest
// on the way.
func (m *Model) storeRendering(msg renderedMsg) tea.Cmd {
	if f := m.cache[msg.key]; msg.rest != nil && f.text != "" && !f.partial {
		return nil // the whole text came first, from an earlier request
	}
	if len(m.cache) > maxCached {
		m.cache = m.onScreen()
	}
	m.cache[msg.key] = formatted{text: msg.out, partial: msg.rest != nil}
	m.fillPanes()
	if msg.rest != nil {
		return renderRest(m.md, msg.key, msg.rest)
	}
	return nil
}

// onScreen is the part of the cache the conflict on screen uses.
func (m *Model) onScreen() map[mdKey]formatted {
	out := make(map[mdKey]formatted, 2)
	for i := range 2 {
		k := m.conflict.key(i, m.styles.Theme.Name())
		if f, ok := m.cache[k]; ok {
			out[k] = f
		}
	}
	return out
}

func (m *Model) fillPanes() {
	cache := m.onScreen()
	for k, f := range cache {
		if f.text == "" {
			delete(cache, k) // requested, not here yet
		}
	}
	m.conflict.fill(m.styles, cache)
}

// key routes a key press: force_quit quits from anywhere; the prompt,
// when open, takes the rest; else the screen in front does.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.flashKept {
		m.flash, m.flashKept = "", false
	}
	if key.Matches(msg, m.keys.ForceQuit) {
		return m.quit()
	}
	if m.tooSmall() {
		// Nothing else is on screen to act on: only quitting works.
		if key.Matches(msg, m.quitKey()) {
			return m.quit()
		}
		m.keysIgnored++
		return nil
	}
	if _, ok := m.top().(helpScreen); ok {
		return m.top().key(m, msg)
	}
	if m.prompt != nil {
		return m.promptKey(msg)
	}
	return m.top().key(m, msg)
}
