package tui

import (
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/editor"
)

// The synthesis editor: the draft is written to a temporary file with both
// units below a marker line; what is above the marker comes back.
const editorMarker = "-------- write above this line; everything below it is dropped --------"

type (
	editorReadyMsg struct {
		id   string
		path string
		err  error
	}
	editorDoneMsg struct {
		id   string
		text string
		err  error
	}
)

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
	f := m.draft(msg.id)
	if f == nil {
		return nil
	}
	if msg.err != nil {
		return m.say("The editor failed; your text is unchanged: " + msg.err.Error())
	}
	text, _, _ := strings.Cut(msg.text, editorMarker)
	f.synthesis.SetValue(strings.TrimSpace(text))
	f.recount()
	f.preview = ""
	return nil
}
