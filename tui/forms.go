package tui

import (
	"os"
	"strconv"
	"strings"

	"arbiter/model"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/editor"
)

type (
	editorReadyMsg struct {
		id   string
		path string
		err  error
	}
	previewMsg struct{ id, out string }
)

// refresh moves a kept draft onto the conflict's new state, keeping what
// was typed.
func (f *decideForm) refresh(d model.ConflictDetail, me model.Agent) {
	s := f.strategy()
	f.detail, f.choices = d, model.Choices(me, d)
	for i, c := range f.choices {
		if c.Strategy == s {
			f.sel = i
		}
	}
}

func (m *Model) decideKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.drafts[m.conflict.id]
	k := m.keys
	switch {
	case f.result != nil:
		if key.Matches(msg, k.Back, k.Open, k.Quit) {
			m.screen = screenQueue
			delete(m.drafts, m.conflict.id)
			return m.reloadQueue()
		}
		return nil
	case f.busy:
		return nil
	case f.confirming:
		if msg.String() == "y" || msg.String() == "Y" {
			req, _ := f.request()
			f.confirming, f.busy, f.refusal = false, true, ""
			return submitMerge(m.svc, m.opt.As, req)
		}
		f.confirming = false // anything else is No
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		if f.preview != "" {
			f.preview = ""
			return nil
		}
		m.screen = screenConflict
		return nil
	case key.Matches(msg, k.Submit):
		_, problem := f.request()
		f.refusal = problem
		f.confirming = problem == ""
		return nil
	case key.Matches(msg, k.Next):
		f.cycle(1)
		return nil
	case key.Matches(msg, k.Prev):
		f.cycle(-1)
		return nil
	case key.Matches(msg, k.Editor) && f.strategy() == model.Synthesis:
		return writeDraft(m.conflict.id, editorText(f))
	case key.Matches(msg, k.Preview) && f.strategy() == model.Synthesis:
		if f.preview != "" {
			f.preview = ""
			return nil
		}
		md, id, text, w, theme := m.md, m.conflict.id, f.synthesis.Value(), min(m.width, 100)-2, m.styles.Theme.Name()
		return func() tea.Msg { return previewMsg{id: id, out: md.Render(text, w, theme)} }
	}
	var cmd tea.Cmd
	switch f.focus {
	case fieldStrategy:
		switch {
		case key.Matches(msg, k.Up):
			f.sel = max(0, f.sel-1)
		case key.Matches(msg, k.Down):
			f.sel = min(len(f.choices)-1, f.sel+1)
		}
		f.pickDefaultWinner()
	case fieldWinner:
		c := f.detail.Conflict
		switch msg.String() {
		case "a", "A", "left", "h":
			f.winner = c.UnitA
		case "b", "B", "right", "l":
			f.winner = c.UnitB
		}
	case fieldRationale:
		f.rationale, cmd = f.rationale.Update(msg)
	case fieldSynthesis:
		f.preview = ""
		f.synthesis, cmd = f.synthesis.Update(msg)
	}
	return cmd
}

func (m *Model) mergeDone(msg mergeDoneMsg) tea.Cmd {
	f := m.drafts[msg.req.ConflictID]
	if f == nil {
		return nil
	}
	f.busy = false
	if msg.err != nil {
		f.refusal = "Not written: " + plainError(msg.err)
		return loadDetail(m.svc, msg.req.ConflictID)
	}
	f.result = &msg.resp
	return tea.Batch(m.reloadQueue(), loadDetail(m.svc, msg.req.ConflictID))
}

// The synthesis editor: the draft is written to a temporary file with both
// units below a marker line; what is above the marker comes back.
const editorMarker = "-------- write above this line; everything below it is dropped --------"

func editorText(f *decideForm) string {
	a, b := f.detail.A.Unit, f.detail.B.Unit
	return strings.TrimSpace(f.synthesis.Value()) + "\n\n" + editorMarker + "\n\n" +
		"## A: " + a.ID + " by " + a.Source.AgentID + "\n\n" + a.Content + "\n\n" +
		"## B: " + b.ID + " by " + b.Source.AgentID + "\n\n" + b.Content + "\n"
}

func writeDraft(id, text string) tea.Cmd {
	return func() tea.Msg {
		fh, err := os.CreateTemp("", "arbiter-synthesis-*.md")
		if err != nil {
			return editorReadyMsg{id: id, err: err}
		}
		defer fh.Close()
		_, err = fh.WriteString(text)
		return editorReadyMsg{id: id, path: fh.Name(), err: err}
	}
}

func (m *Model) runEditor(msg editorReadyMsg) tea.Cmd {
	if msg.err != nil {
		return m.say("Could not open the editor: " + msg.err.Error())
	}
	cmd, err := editor.Cmd("arbiter", msg.path)
	if err != nil {
		os.Remove(msg.path)
		return m.say("Could not open the editor: " + err.Error())
	}
	path, id := msg.path, msg.id
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{id: id, err: err}
		}
		b, rerr := os.ReadFile(path)
		return editorDoneMsg{id: id, text: string(b), err: rerr}
	})
}

func (m *Model) editorDone(msg editorDoneMsg) tea.Cmd {
	f := m.drafts[msg.id]
	if f == nil {
		return nil
	}
	if msg.err != nil {
		return m.say("The editor failed; your text is unchanged: " + msg.err.Error())
	}
	text, _, _ := strings.Cut(msg.text, editorMarker)
	f.synthesis.SetValue(strings.TrimSpace(text))
	f.preview = ""
	return nil
}

func (m *Model) voteKey(msg tea.KeyPressMsg) tea.Cmd {
	f := m.vote
	k := m.keys
	switch {
	case f.result != nil:
		if key.Matches(msg, k.Back, k.Open) {
			m.screen = screenConflict
			m.vote = nil
		}
		return nil
	case f.busy:
		return nil
	case f.confirming:
		if msg.String() == "y" || msg.String() == "Y" {
			req, _ := f.request()
			f.confirming, f.busy, f.refusal = false, true, ""
			return submitVote(m.svc, m.opt.As, req)
		}
		f.confirming = false
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenConflict
		return nil
	case key.Matches(msg, k.Submit):
		_, problem := f.request()
		f.refusal, f.confirming = problem, problem == ""
		return nil
	case key.Matches(msg, k.Next, k.Prev):
		f.cycle()
		return nil
	}
	if f.focus == fieldWinner {
		c := f.detail.Conflict
		switch msg.String() {
		case "a", "A", "left", "h":
			f.choice = c.UnitA
		case "b", "B", "right", "l":
			f.choice = c.UnitB
		}
		return nil
	}
	var cmd tea.Cmd
	f.rationale, cmd = f.rationale.Update(msg)
	return cmd
}

func (m *Model) voteDone(msg voteDoneMsg) tea.Cmd {
	f := m.vote
	if f == nil || f.detail.Conflict.ID != msg.req.ConflictID {
		return nil
	}
	f.busy = false
	if msg.err != nil {
		f.refusal = "Not counted: " + plainError(msg.err)
		return loadDetail(m.svc, msg.req.ConflictID)
	}
	f.result = &msg.resp
	return tea.Batch(m.reloadQueue(), loadDetail(m.svc, msg.req.ConflictID))
}

func itoa(n int) string { return strconv.Itoa(n) }

func rolesOf(p model.Policy) string {
	if len(p.VoterRoles) == 0 {
		return ""
	}
	return " and the role " + strings.Join(p.VoterRoles, " or ")
}
