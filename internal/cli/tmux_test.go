package cli

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	s.run("new-session", "-d", "-x", itoa(w), "-y", itoa(h), cmdline+"; sleep 600")
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

// send types keys (tmux key names, or literal text with -l).
func (s *tmuxSession) send(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.run("send-keys", k)
		time.Sleep(80 * time.Millisecond)
	}
}

func (s *tmuxSession) typeText(text string) {
	s.t.Helper()
	s.run("send-keys", "-l", text)
	time.Sleep(150 * time.Millisecond)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p") }

func (s *tmuxSession) waitFor(texts ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		ok := true
		for _, want := range texts {
			ok = ok && strings.Contains(scr, want)
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the terminal never showed %q; it shows:\n%s", texts, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
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
