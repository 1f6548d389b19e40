package cli

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"arbiter/model"
)

// A decision, a ballot or an approval the screen over SSH said it will
// write is written whatever ends the session: the client killed, or the
// server itself killed with SIGKILL and started again. The person's next
// screen says it was.

// killClient kills the ssh client the tmux session runs, as a crash or a
// closed laptop would: no goodbye to the server.
func (s *tmuxSession) killClient() {
	s.t.Helper()
	shell := strings.TrimSpace(s.run("list-panes", "-F", "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", shell, "ssh").Output()
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || perr != nil {
		s.t.Fatalf("no ssh client under the pane's shell %s: %v %q", shell, err, out)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		s.t.Fatal(err)
	}
}

// keepBOn010 decides demo conflict-010 for B from its view: /010, enter,
// B, a rationale, enter; it waits for the undo window.
func keepBOn010(s *tmuxSession) {
	s.send("/")
	s.typeText("conflict-010")
	s.waitForFlat("▸ conflict-010")
	s.send("Enter", "Enter")
	s.waitForFlat("conflict-010", "Rules:")
	s.send("B")
	s.waitForFlat("Keep B conflict-010")
	s.typeText("The detokenisation worker is in scope.")
	s.send("Enter")
	s.waitForFlat("conflict-010: keep B", "written in")
}

func TestServeWritesWhatTheScreenHeldWhenTheClientIsKilled(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	maya, priya := sshKey(t, dir, "maya"), sshKey(t, dir, "priya")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "ops-maya", maya+".pub")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", priya+".pub")
	known := filepath.Join(dir, "known_hosts")
	srv := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host_key"))

	op := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, maya, known))
	op.waitForFlat("as ops-maya", "▸ conflict-008")
	lead := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, priya, known))
	lead.waitForFlat("as lead-priya")
	keepBOn010(op)
	voteBOn016(lead)
	lead.waitForFlat("written in")
	op.killClient()
	lead.killClient()

	until(t, "conflict-010 decided as ops-maya", func() bool {
		d := showJSON(t, db, "conflict-010")
		return d.Conflict.Status == model.StatusResolved && d.Conflict.Resolution.ResolvedBy == "ops-maya" &&
			d.Conflict.Resolution.Rationale == "The detokenisation worker is in scope."
	})
	until(t, "lead-priya's ballot on conflict-016", func() bool {
		d := showJSON(t, db, "conflict-016")
		return len(d.Ballots) == 1 && d.Ballots[0].VoterID == "lead-priya"
	})

	again := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, maya, known))
	again.waitForFlat("Written after your screen closed: conflict-010: last_write_wins, keeping")
	if strings.Contains(srv.logText(), "panic") {
		t.Errorf("the server's log:\n%s", srv.logText())
	}
}

// The server killed with SIGKILL while an approval waits in its undo
// window: the next run writes it once it is due, and says so.
func TestServeKilledInTheUndoWindowWritesItAtTheNextStart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	maya := sshKey(t, dir, "maya")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "ops-maya", maya+".pub")
	known, hostKey := filepath.Join(dir, "known_hosts"), filepath.Join(dir, "host_key")
	srv := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", hostKey)

	op := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, maya, known))
	op.waitForFlat("as ops-maya", "▸ conflict-008")
	op.send("Enter")
	op.waitForFlat("plan-juno proposes: replace both with a synthesis", "p approve")
	op.send("p")
	op.waitForFlat("Approve plan-juno's proposal")
	op.typeText("Kept just as proposed: the split by payment class.")
	op.send("Enter")
	op.waitForFlat("conflict-008: approve", "written in")
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-srv.done
	if d := showJSON(t, db, "conflict-008"); d.Conflict.Status != model.StatusEscalated {
		t.Fatalf("conflict-008 is %s right after the kill; the screen had not written it yet", d.Conflict.Status)
	}

	next := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", hostKey)
	until(t, "conflict-008 approved as ops-maya", func() bool {
		d := showJSON(t, db, "conflict-008")
		return d.Conflict.Status == model.StatusResolved && d.Conflict.Resolution.ResolvedBy == "ops-maya" &&
			strings.Contains(d.Conflict.Resolution.Rationale, "Kept just as proposed")
	})
	if !strings.Contains(next.logText(), "wrote ops-maya's decision held when their screen ended (conflict-008: synthesis): written") {
		t.Errorf("the next run's log does not say it wrote the held decision:\n%s", next.logText())
	}
	back := tmuxSSH(t, 150, 40, sshArgs(next.sshAddr, maya, known))
	back.waitForFlat("Written after your screen closed: conflict-008: synthesis")
}

// SIGHUP stops the server as SIGTERM does: a ballot in its undo window is
// written, and the process exits 0.
func TestServeStopsOnSIGHUPWritingWhatTheScreenHeld(t *testing.T) {
	// A server started with SIGHUP ignored (under nohup) keeps ignoring
	// it, as it should; and a child inherits an ignored signal. The tests
	// may run under nohup: while this one listens for SIGHUP itself, the
	// server it starts gets the default, as from a terminal.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	priya := sshKey(t, dir, "priya")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", priya+".pub")
	srv := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host_key"))
	lead := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, priya, filepath.Join(dir, "known_hosts")))
	lead.waitForFlat("as lead-priya")
	voteBOn016(lead)
	lead.waitForFlat("written in")
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
	case <-time.After(time.Minute):
		t.Fatalf("serve did not stop after SIGHUP:\n%s", srv.logText())
	}
	if srv.exitCode != 0 {
		t.Errorf("serve exited %d after SIGHUP:\n%s", srv.exitCode, srv.logText())
	}
	if d := showJSON(t, db, "conflict-016"); len(d.Ballots) != 1 || d.Ballots[0].VoterID != "lead-priya" {
		t.Errorf("the ballot in its undo window at SIGHUP: %+v", d.Ballots)
	}
}
