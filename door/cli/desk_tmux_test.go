package cli

import (
	"arbiter/internal/testwait"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The review screen as a lead and an operator keep it open all day: the
// real binary in tmux on the demo field, at 80×24 and at 160×48, one test
// per part of the desk.

// deskSizes are the terminals every desk test runs in.
var deskSizes = [][2]int{{80, 24}, {160, 48}}

// deskField is a fresh demo field.
func deskField(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	return db
}

// desk opens the screen on db as as, w × h.
func desk(t *testing.T, w, h int, db, as string, args ...string) *tmuxSession {
	t.Helper()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	s := newTmux(t, w, h, env, append([]string{"--db", db, "--as", as}, args...)...)
	s.waitFor("▸ conflict-", "escalated ")
	return s
}

// footer is the screen's last line.
func footer(scr string) string {
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// toRow moves the queue's cursor to id's row.
func toRow(t *testing.T, s *tmuxSession, id string) {
	t.Helper()
	s.send("/")
	s.typeText(id)
	s.waitFor("▸ " + id)
	s.send("Enter") // keep the filter
}

// walk presses key until the position line at matches says the end
// (or there is none: all of it shows), each step's frame waited for by
// its first line's number changing, and returns every frame from scr on.
// Keys sent at once let a loaded screen skip frames, so that what they
// held was never seen.
func walk(t *testing.T, s *tmuxSession, scr, key string, at *regexp.Regexp, end func(m []string) bool) string {
	t.Helper()
	var seen strings.Builder
	for range 30 {
		seen.WriteString(scr)
		m := at.FindStringSubmatch(scr)
		if m == nil || end(m) {
			break
		}
		s.send(key)
		testwait.For(t, "the next frame after "+key, func() bool {
			scr = s.screen()
			n := at.FindStringSubmatch(scr)
			return n != nil && n[1] != m[1]
		})
	}
	return seen.String()
}

// 1. Beside the queue, on 160 columns, the conflict under the cursor:
// what is disputed, its route, both sides; it follows the cursor. On 80
// columns its key says why it does not show.
func TestTheDeskPreviewInATerminal(t *testing.T) {
	for _, size := range deskSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := desk(t, size[0], size[1], deskField(t), "ops-maya")
			if size[0] < 140 {
				if scr := s.screen(); strings.Contains(scr, "╮") {
					t.Errorf("a preview on %d columns:\n%s", size[0], scr)
				}
				s.send("P")
				s.waitForFlat("The preview shows beside the queue on a terminal of 140 columns or more; this one has 80.")
				return
			}
			s.waitFor("▸ conflict-008", "A: mem-023 by ana-quill", "B: mem-026 by sre-atlas", "Routed to you (ops-maya)",
				"Rules split:", "Shadow reconciliation")
			s.send("j")
			s.waitFor("▸ conflict-011", "A: mem-035", "Merchant dashboard first")
			s.send("k")
			s.waitFor("▸ conflict-008", "A: mem-023 by ana-quill")
			s.send("P")
			scr := s.waitGone("A: mem-023")
			if !strings.Contains(scr, "AGENTS") {
				t.Errorf("without the preview the queue should take the whole width:\n%s", scr)
			}
		})
	}
}

// 3. ? shows the keys of the screen in front first, under headings, and
// scrolls, saying where it is; the footer ends with ? help, and names #
// stats at 80 columns.
func TestTheDeskHelpInATerminal(t *testing.T) {
	for _, size := range deskSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := desk(t, size[0], size[1], deskField(t), "lead-tomas")
			scr := s.waitFor("? help") // the screen drawn whole
			if f := footer(scr); !strings.HasSuffix(f, "? help") || !strings.Contains(f, "# stats") {
				t.Errorf("the queue's footer: %q", f)
			}
			s.send("?")
			// The help drawn whole: its position line, the last it draws, is
			// there. (" of " alone is in the first lines: "the top of a pane".)
			at := regexp.MustCompile(`lines (\d+)–\d+ of \d+ [↑]*(↓?)`)
			testwait.For(t, "the help's position line", func() bool {
				scr = s.screen()
				return strings.Contains(scr, "The queue — where you are") && at.MatchString(scr)
			})
			seen := walk(t, s, scr, "PageDown", at, func(m []string) bool { return m[2] == "" })
			all := flat(seen)
			for _, want := range []string{"The queue — where you are", "A conflict", "Forms", "A confirmation", "Everywhere",
				"a/← choose A:", "tab next field:", "tab switch pane:", "enter open:", "enter write it:"} {
				if !strings.Contains(all, want) {
					t.Errorf("paged through, the help never showed %q", want)
				}
			}
			s.send("Escape")
			s.waitFor("▸ conflict-")
			s.send("Enter")
			s.waitFor("Rules:")
			testwait.For(t, "the conflict's footer ending with ? help", func() bool {
				return strings.HasSuffix(footer(s.screen()), "? help")
			})
			s.send("?")
			s.waitFor("A conflict — where you are")
		})
	}
}

// 4. Nothing is cut without a sign: the queue's header fits; a table of a
// unit shows every cell; a pane that holds more says where it is.
func TestTheDeskCutsNothingSilentlyInATerminal(t *testing.T) {
	for _, size := range deskSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			db := deskField(t)
			s := desk(t, size[0], size[1], db, "lead-priya")
			scr := s.waitFor("showing waiting for people", "? help")
			if head := strings.Split(scr, "\n")[1]; strings.Contains(head, "…") || !strings.Contains(head, "showing waiting for people") {
				t.Errorf("the queue's header is cut: %q", head)
			}
			toRow(t, s, "conflict-014")
			s.send("Enter")
			s.waitFor("conflict-014  strategic conflict")
			s.send("Tab")
			// The unit drawn (its first line), then walked down a line at
			// a time, each line's frame waited for: keys sent at once
			// scrolled a loaded screen to the end before the unit was
			// drawn, and the frames between were never seen.
			scr = s.waitFor("B mem-047", "Keep Quarry warm for 7 days")
			pos := regexp.MustCompile(`─ (\d+)–(\d+) of (\d+) [↑↓]+ ──╯`)
			seen := walk(t, s, scr, "j", pos, func(m []string) bool { return m[2] == m[3] })
			for _, want := range []string{"$7.3k", "$31.4k", "$13.4k", "Total", "On-call (two stacks)"} {
				if !strings.Contains(seen, want) {
					t.Errorf("the table of mem-047 never showed %q:\n%s", want, s.screen())
				}
			}
			if size[1] == 24 && !pos.MatchString(seen) {
				t.Errorf("the pane never said which of its lines show:\n%s", s.screen())
			}
			// Each esc is let act before the next key: a key right after
			// esc reads as alt and that key.
			s.send("Escape")
			s.waitFor("▸ conflict-")
			s.send("Escape")
			s.waitGone("/ conflict-014")
			toRow(t, s, "conflict-008")
			s.send("Enter")
			s.waitFor("conflict-008  factual conflict")
			s.send("h")
			scr = s.waitFor("History", "epoch ")
			if size[1] == 24 && !regexp.MustCompile(`╭─+ ↑ \d+ more ──╮`).MatchString(scr) {
				t.Errorf("the history does not say that more is above:\n%s", scr)
			}
		})
	}
}

// 5. A ballot changed in the form is cast for the side the person chose,
// with the rationale they typed: text typed on the choice of side goes to
// the rationale, and the confirmation says both.
func TestTheDeskBallotInATerminal(t *testing.T) {
	for _, size := range deskSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			db := deskField(t)
			s := desk(t, size[0], size[1], db, "lead-priya")
			toRow(t, s, "conflict-015") // lead-priya voted B on it
			s.send("Enter")
			s.waitFor("conflict-015  priority conflict")
			s.send("v")
			s.waitFor("Vote on conflict-015", "▍For", "a/b or ←/→")
			s.typeText("Both cohorts, and a slow start.")
			s.waitForFlat("What you typed went to the rationale")
			s.send("C-s")
			s.waitForFlat("Cast this vote? For B (mem-049)", "rationale: EU first.", "Both cohorts, and a slow start.")
			s.send("y")
			s.waitForFlat("is counted:")
			d := showJSON(t, db, "conflict-015")
			found := false
			for _, b := range d.Ballots {
				found = found || b.VoterID == "lead-priya" && b.Choice == d.Conflict.UnitB &&
					strings.HasSuffix(b.Rationale, "Both cohorts, and a slow start.")
			}
			if !found {
				t.Errorf("lead-priya's ballot is not for B with the typed rationale: %+v", d.Ballots)
			}
		})
	}
}

// 8. Views from the config file show as tabs; ] switches them, and each
// keeps what its query asks for.
func TestTheDeskViewsInATerminal(t *testing.T) {
	for _, size := range deskSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			db := deskField(t)
			config := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(config, []byte("views:\n  - name: Mine\n    query: mine\n  - name: Overdue\n    query: due:overdue\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := desk(t, size[0], size[1], db, "ops-maya", "--config", config)
			s.waitFor(" Waiting ", " Mine ", " Overdue ", "[ ] switch views")
			s.send("]")
			s.waitFor("“Mine”")
			s.send("]")
			s.waitFor("“Overdue”", "▸ conflict-011")
			scr := s.waitGone("conflict-008 ")
			if n := len(regexp.MustCompile(`(?m)^[ ▸●✓⋯↷]{1,2} ?conflict-\d+`).FindAllString(scr, -1)); n != 1 {
				t.Errorf("the view Overdue shows %d rows, want conflict-011 alone:\n%s", n, scr)
			}
			s.send("[", "[")
			s.waitFor("showing waiting for people", "conflict-008")
		})
	}
}

// 9. The small ones: keys do nothing while the terminal is too small; a
// quick decision and a form's end on the queue alike; a refusal says who
// may once; every status claims no order it is not in; the cursor keeps
// a row's mark; a batch lists its conflicts; a notice keeps its
// sentences apart; a decision someone else made first is said refused at
// once.
func TestTheDeskSmallOnesInATerminal(t *testing.T) {
	for _, size := range deskSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			w, h := size[0], size[1]
			db := deskField(t)
			lead := desk(t, w, h, db, "lead-priya")
			toRow(t, lead, "conflict-009") // routed to lead-tomas
			lead.send("A")
			scr := lead.waitForFlat("only lead-tomas, its owner, or a human operator (authority 10) may decide it")
			if strings.Contains(flat(scr), "(ask lead-tomas") {
				t.Errorf("the refusal says who may twice:\n%s", scr)
			}
			lead.send("Escape") // clears the filter
			lead.waitGone("/ conflict-009")
			lead.send("a") // not at once after esc, which would make it alt+a
			scr = lead.waitFor("showing all statuses")
			if strings.Contains(strings.Split(scr, "\n")[1], "yours") {
				t.Errorf("every status claims the person's order:\n%s", scr)
			}

			op := desk(t, w, h, db, "ops-maya")
			// Too small: keys act on nothing hidden.
			op.run("resize-window", "-x", "50", "-y", "10")
			op.waitFor("Terminal too small")
			op.send("Enter", "X", "d")
			op.waitForFlat("3 keys ignored until it is larger") // handled while small, before the resize
			op.run("resize-window", "-x", itoa(w), "-y", itoa(h))
			scr = op.waitFor("▸ conflict-008")
			if strings.Contains(scr, "factual conflict ·") || strings.Contains(scr, "Dismiss conflict-008") {
				t.Errorf("keys pressed while the terminal was too small acted:\n%s", scr)
			}
			// The cursor keeps a row's mark; a batch lists what it does.
			op.send("Space")
			op.waitFor("1 marked")
			op.send("k")
			op.waitFor("▸✓conflict-008")
			op.send("j", "Space", "Space")
			op.waitFor("3 marked")
			op.send("A")
			op.waitForFlat("Keep A on 3 marked conflicts", "conflict-008: mem-023 prevails (", "· notifies ")
			op.send("Escape")
			op.waitGone("Keep A on")
			op.send("Escape")
			op.waitGone("marked")
			op.send("g")
			op.waitFor("▸ conflict-008")
			// A dismissal says what it does once.
			op.send("X")
			op.waitForFlat("Dismiss conflict-008: not a real conflict, both units stand")
			op.send("Escape")
			op.waitGone("Dismiss conflict-008")
			// Approve from the conflict, and decide in the form: both end
			// on the queue, saying what was written.
			op.send("Enter")
			op.waitFor("conflict-008  factual conflict", "plan-juno proposes")
			op.send("p")
			op.waitForFlat("Approve plan-juno's proposal")
			op.typeText("The gate holds; Phase 0 may proceed")
			op.send("Enter")
			op.waitForFlat("Written. conflict-008 is now resolved (synthesis)", "showing waiting for people")
			toRow(t, op, "conflict-011")
			op.send("Enter")
			op.waitFor("conflict-011  priority conflict")
			op.send("d")
			op.waitFor("Decide conflict-011")
			for range 7 {
				op.send("Down")
			}
			op.waitFor("▸ dismiss")
			op.send("Tab")
			op.typeText("Different releases.")
			op.send("C-s")
			op.waitFor("Write this decision?")
			op.send("y")
			op.waitForFlat("Written. conflict-011 is now resolved (dismiss)", "showing waiting for people")
			// The approval's notice keeps the person's words and the
			// approval apart, as two sentences.
			d := showJSON(t, db, "conflict-008")
			told := false
			for _, n := range d.Notifications {
				told = told || strings.Contains(n.Summary, "Phase 0 may proceed. Approves plan-juno's proposal")
			}
			if !told {
				t.Errorf("no notice of the approval keeps its sentences apart: %+v", d.Notifications)
			}
			// A decision someone else made first is said refused as soon
			// as it waits, not after its undo window.
			op.send("Escape")
			op.waitGone("/ conflict-011")
			toRow(t, op, "conflict-012")
			op.send("X")
			op.waitForFlat("Dismiss conflict-012: not a real conflict")
			op.typeText("Both counts are right.")
			ok(t, "--db", db, "--as", "ops-maya", "merge", "conflict-012", "--strategy", "dismiss", "--rationale", "Decided elsewhere.")
			op.send("Enter")
			op.waitForFlat("Not written, the field would refuse it now: conflict-012:")
		})
	}
}
