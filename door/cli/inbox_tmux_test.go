package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
)

// The desk a lead keeps open all day, in real terminals at 80×24 and
// 160×48, on the demo field: the inbox and its toasts and the drafts
// over SSH (`arbiter serve` and the real OpenSSH client), the figures in
// the screen a person starts.

var inboxSizes = []struct{ w, h int }{{80, 24}, {160, 48}}

// noticeUnderCursor is the conflict of the notice under the inbox's
// cursor.
var noticeUnderCursor = regexp.MustCompile(`▸ [● ] (conflict-\d+) · `)

// servedDemo is the demo field served over SSH, with keys for who.
func servedDemo(t *testing.T, who ...string) (db string, srv *served, login func(w, h int, person string) *tmuxSession) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	keys := map[string]string{}
	for _, p := range who {
		keys[p] = sshKey(t, dir, p)
		ok(t, "--db", db, "--as", "ops-maya", "keys", "add", p, keys[p]+".pub")
	}
	known := filepath.Join(dir, "known_hosts")
	srv = serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host_key"))
	return db, srv, func(w, h int, person string) *tmuxSession {
		return tmuxSSH(t, w, h, sshArgs(srv.sshAddr, keys[person], known))
	}
}

// Item 2: the inbox over SSH. The header counts the unread; the inbox
// lists them newest first, whole, and clears the count; enter opens a
// notice's conflict; a decision another process makes on an escalation
// the lead owns comes as a toast, and counts as unread.
func TestTheInboxAndItsToastsOverSSH(t *testing.T) {
	for _, size := range inboxSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			db, _, login := servedDemo(t, "lead-kenji")
			kenji := login(size.w, size.h, "lead-kenji")
			kenji.waitFor("as lead-kenji", "unread · i")
			kenji.send("i")
			scr := kenji.waitFor("Inbox", "newest first", "unread", "conflict-016 · vote opened")
			if !strings.Contains(flat(scr), "conflict-016 is put to a vote by strat-orion (quorum 3)") {
				t.Errorf("a notice is not shown whole:\n%s", scr)
			}
			kenji.waitGone("unread · i") // read: the header's count goes
			first := noticeUnderCursor.FindStringSubmatch(scr)
			if first == nil {
				t.Fatalf("no notice under the cursor:\n%s", scr)
			}
			kenji.send("Enter")
			kenji.waitFor(first[1]+"  ", "Rules:")
			kenji.send("Escape")
			kenji.waitFor("newest first")
			kenji.send("Escape")
			kenji.waitFor("▸ conflict-")

			ok(t, "--db", db, "--as", "ops-maya", "merge", "conflict-012", "--strategy", "authority", "--winner", "mem-039",
				"--rationale", "The acquirer's own count settles it: 4,200 a second at the peak.")
			kenji.waitForFlat("◆ conflict-012, escalated to you, was decided by ops-maya: mem-039 (A) prevails.")
			kenji.waitFor("1 unread · i")
		})
	}
}

// draftsOf reads person's drafts on conflict from the field file, as
// another process would.
func draftsOf(t *testing.T, db, person, conflict string) []model.Draft {
	t.Helper()
	st, err := field.Open(context.Background(), db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ds, err := review.New(st).Drafts(context.Background(), person, conflict)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// Item 6: a ballot being written survives a dropped SSH session (the
// client killed before the typing paused) and a killed server; the next
// session offers it back when the conflict opens, and the ballot form
// takes it up whole.
func TestADraftSurvivesADroppedSessionAndAKilledServer(t *testing.T) {
	why := "Thirty days of warm standby covers the first chargeback cycle; after that the cost is not worth it."
	for _, size := range inboxSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			db, srv, login := servedDemo(t, "lead-priya")
			priya := login(size.w, size.h, "lead-priya")
			priya.waitFor("as lead-priya", "conflict-014")
			openBallot014(priya)
			priya.typeText(why)
			priya.waitForFlat(why)
			priya.run("kill-server") // the client dies: the session drops as the typing ends
			var ds []model.Draft
			if !testwait.Until(testwait.Deadline, func() bool {
				ds = draftsOf(t, db, "lead-priya", "conflict-014")
				return len(ds) > 0 && ds[0].Rationale == why
			}) {
				t.Fatalf("after the session dropped the field holds %+v, want the ballot's whole rationale", ds)
			}
			// The server is killed, and started again.
			srv.cmd.Process.Kill()
			<-srv.done
			_, _, relogin := servedAgain(t, db)
			priya = relogin(size.w, size.h, "lead-priya")
			priya.waitFor("as lead-priya", "conflict-014")
			priya.send("/")
			priya.typeText("conflict-014")
			priya.waitFor("▸ conflict-014")
			priya.send("Enter", "Enter")
			priya.waitFor("Your unwritten ballot from", "v takes it up", "D drops it")
			priya.send("v")
			priya.waitFor("Vote on conflict-014")
			priya.waitForFlat(why)
		})
	}
}

// openBallot014 opens the ballot on demo conflict-014, A chosen and the
// rationale's box in front.
func openBallot014(s *tmuxSession) {
	s.send("/")
	s.typeText("conflict-014")
	s.waitFor("▸ conflict-014")
	s.send("Enter", "Enter")
	s.waitFor("Rules:")
	s.send("v")
	s.waitFor("Vote on conflict-014")
	s.send("a", "Tab")
}

// servedAgain serves db again over SSH, its people's keys added already.
func servedAgain(t *testing.T, db string) (*served, string, func(w, h int, person string) *tmuxSession) {
	t.Helper()
	dir := filepath.Dir(db)
	srv := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host_key"))
	known := filepath.Join(dir, "known_hosts")
	return srv, known, func(w, h int, person string) *tmuxSession {
		return tmuxSSH(t, w, h, sshArgs(srv.sshAddr, filepath.Join(dir, person), known))
	}
}

// Item 7: the figures in a real terminal. By person lists the people who
// decided, not agents and not "vote"; the screen says when it read the
// figures, and reads them again when another process writes.
func TestTheFiguresFollowTheFieldInARealTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	for _, size := range inboxSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "demo.db")
			ok(t, "init", "--db", db, "--demo")
			s := newTmux(t, size.w, size.h, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "TZ=UTC"},
				"--db", db, "--as", "ops-maya")
			s.waitFor("▸ conflict-008")
			s.send("#")
			s.waitFor("Read at", "ctrl+r reads them now", "Open conflicts: 13") // 10 declared, 3 detected
			scr := s.screen()
			for i := 0; i < 60 && !strings.Contains(scr, "Agents whose units collide most"); i++ {
				s.send("j")
				scr = s.waitChange(scr) // each line drawn before the next key, or a loaded screen scrolls past
			}
			_, person, found := strings.Cut(scr, "by person")
			person, _, _ = strings.Cut(person, "Agents whose units")
			if !found || !strings.Contains(person, "ops-maya") || strings.Contains(person, "plan-juno") ||
				strings.Contains(person, "ana-quill") || strings.Contains(person, " vote ") {
				t.Fatalf("by person should list the people only:\n%s", scr)
			}
			for _, l := range strings.Split(scr, "\n")[1:] { // the header's field name may give way
				if strings.Contains(strings.ReplaceAll(l, " … ", ""), "…") {
					t.Errorf("a line is cut: %q", l)
				}
			}
			s.send("g")
			ok(t, "--db", db, "--as", "ops-maya", "merge", "conflict-011", "--strategy", "dismiss", "--rationale", "Not a real conflict.")
			s.waitFor("Open conflicts: 12")
		})
	}
}
