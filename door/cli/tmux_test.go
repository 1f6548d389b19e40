package cli

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/model"
)

// tmuxSession runs the real binary in a real terminal: tmux, driven with
// send-keys and read with capture-pane, as a person at a keyboard would.
type tmuxSession struct {
	t    *testing.T
	name string // the server's socket: each session has its own server
}

func newTmux(t *testing.T, w, h int, env []string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, name: filepath.Join(t.TempDir(), "tmux.sock")}
	cmdline := "env " + strings.Join(append(env, "TERM=xterm-256color"), " ") + " " + bin + " " + strings.Join(args, " ")
	s.run("new-session", "-d", "-x", itoa(w), "-y", itoa(h), cmdline+`; echo "[arbiter exited $?]"; sleep 600`)
	t.Cleanup(func() { s.run("kill-server") })
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.name}, args...)...).CombinedOutput()
	if err != nil && args[0] != "kill-server" {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// send presses keys (tmux key names) one after another. The terminal
// hands the program an escape followed at once by another key as one
// alt+key, so an Escape with more keys after it waits until the screen
// has taken it (it changed) before the next goes.
func (s *tmuxSession) send(keys ...string) {
	s.t.Helper()
	for i, k := range keys {
		before := ""
		if k == "Escape" && i < len(keys)-1 {
			before = s.screen()
		}
		s.run("send-keys", k)
		if before != "" {
			s.waitChange(before)
		}
	}
}

// typeText types text, as literal characters.
func (s *tmuxSession) typeText(text string) {
	s.t.Helper()
	s.run("send-keys", "-l", text)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p") }

// waitFor waits until the screen shows every one of texts, and returns it.
func (s *tmuxSession) waitFor(texts ...string) string {
	s.t.Helper()
	var scr string
	shows := func() bool {
		scr = s.screen()
		for _, want := range texts {
			if !strings.Contains(scr, want) {
				return false
			}
		}
		return true
	}
	if !testwait.Until(testwait.Deadline, shows) {
		s.t.Fatalf("the terminal never showed %q; it shows:\n%s", texts, scr)
	}
	return scr
}

// flat is text with its runs of blanks and line ends made one space, and
// a text box's left edge (┃) gone: a sentence wrapped over lines reads
// whole.
func flat(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "┃", "")), " ")
}

// waitForFlat waits until the screen, read flat, holds every one of
// texts (read flat too), however they wrap, and returns it.
func (s *tmuxSession) waitForFlat(texts ...string) string {
	s.t.Helper()
	var scr string
	shows := func() bool {
		scr = s.screen()
		f := flat(scr)
		for _, want := range texts {
			if !strings.Contains(f, flat(want)) {
				return false
			}
		}
		return true
	}
	if !testwait.Until(testwait.Deadline, shows) {
		s.t.Fatalf("the terminal never showed %q; it shows:\n%s", texts, scr)
	}
	return scr
}

// waitGone waits until the screen no longer shows text, and returns it.
func (s *tmuxSession) waitGone(text string) string {
	s.t.Helper()
	var scr string
	if !testwait.Until(testwait.Deadline, func() bool { scr = s.screen(); return !strings.Contains(scr, text) }) {
		s.t.Fatalf("the terminal still shows %q:\n%s", text, scr)
	}
	return scr
}

// waitChange waits until the screen is no longer before, and returns it.
func (s *tmuxSession) waitChange(before string) string {
	s.t.Helper()
	var scr string
	if !testwait.Until(testwait.Deadline, func() bool { scr = s.screen(); return scr != before }) {
		s.t.Fatalf("the terminal did not change from:\n%s", before)
	}
	return scr
}

// TestKeyboardDecisionAndVoteInARealTerminal makes a decision and casts a
// vote with the keyboard alone, in tmux, on the demo field, then reads
// them back with `arbiter show --json`.
func TestKeyboardDecisionAndVoteInARealTerminal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	if r := arbiter(t, "init", "--db", db, "--demo"); r.code != 0 {
		t.Fatalf("init --demo: %d %s", r.code, r.stderr)
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}

	op := newTmux(t, 150, 40, env, "--db", db, "--as", "ops-maya")
	op.waitFor("▸ conflict-008", "escalated 5")
	op.send("Enter")
	op.waitFor("A mem-023", "B mem-026")
	op.send("d")
	op.waitFor("Decide conflict-008")
	op.send("Down") // confidence_weighted; the rule picks A
	op.waitFor("▸ confidence_weighted", "the rule picks A")
	op.send("Tab", "Tab")
	op.typeText("Fourteen nightly runs outweigh a one-day re-run.")
	op.send("C-s")
	op.waitFor("Write this decision?", "mem-026 becomes superseded")
	op.send("y")
	op.waitFor("Written.", "is now resolved")
	op.send("Escape")
	op.waitFor("escalated 4")
	op.send("q")

	d := showJSON(t, db, "conflict-008")
	if r := d.Conflict.Resolution; d.Conflict.Status != model.StatusResolved || r == nil ||
		r.Strategy != model.ConfidenceWeighted || *r.WinnerID != "mem-023" || r.ResolvedBy != "ops-maya" ||
		r.Rationale != "Fourteen nightly runs outweigh a one-day re-run." {
		t.Fatalf("show --json after the keyboard decision: %+v", d.Conflict)
	}
	if d.B.Unit.Status != model.UnitSuperseded {
		t.Errorf("the loser should be superseded, is %s", d.B.Unit.Status)
	}

	lead := newTmux(t, 150, 40, env, "--db", db, "--as", "lead-priya")
	lead.waitFor("conflict-016")
	voteBOn016(lead)
	lead.waitFor("is counted:")
	lead.send("Escape", "Escape", "q")

	d = showJSON(t, db, "conflict-016")
	if len(d.Ballots) != 1 || d.Ballots[0].VoterID != "lead-priya" || d.Ballots[0].Choice != d.Conflict.UnitB ||
		d.Ballots[0].Rationale != "Settled means the money is in the merchant's account." {
		t.Fatalf("show --json after the keyboard vote: %+v", d.Ballots)
	}
}

// voteBOn016 casts, on the screen s shows (lead-priya's), a ballot for B
// on demo conflict-016 through the vote form: find it, open it, v, B,
// the rationale, send and confirm.
func voteBOn016(s *tmuxSession) {
	s.send("/")
	s.typeText("conflict-016")
	s.waitFor("▸ conflict-016")
	s.send("Enter", "Enter")
	s.waitFor("Vote: 0 for A")
	s.send("v")
	s.waitFor("Vote on conflict-016")
	s.send("b", "Tab")
	s.typeText("Settled means the money is in the merchant's account.")
	s.send("C-s")
	s.waitFor("Cast this vote?")
	s.send("y")
}
