package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"
)

// cursorRow is the conflict under the queue's cursor.
var cursorRow = regexp.MustCompile(`▸ (conflict-\d+)`)

// TestTwentyDecisionsAndABatchWithAFewKeysEach settles 20 escalated
// conflicts of a generated field in the real screen, in tmux, mixing keep
// A, keep B and dismiss, with at most 3 keys each besides the rationale's
// text; then dismisses the 10 left as one batch in at most 5 keys; then
// reads every decision back through the command line.
func TestTwentyDecisionsAndABatchWithAFewKeysEach(t *testing.T) {
	db := filepath.Join(t.TempDir(), "field.db")
	if _, err := fieldgen.Build(context.Background(), db, fieldgen.Options{Units: 2000, Conflicts: 400, Open: 60, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	st, err := field.Open(context.Background(), db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := review.New(st)
	me, _ := svc.Agent(context.Background(), fieldgen.Operator)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	s := newTmux(t, 160, 40, env, "--db", db, "--as", fieldgen.Operator)
	s.waitFor("▸ conflict-", "authority 10")

	keys := 0
	press := func(k ...string) { keys += len(k); s.send(k...) }
	want := map[string]string{} // conflict → what was decided
	start := time.Now()
	perConflict := map[string]int{}
	for i := range 20 {
		before := keys
		var id, kind string
		// The queue reorders as the decisions before are written: the
		// prompt must name the conflict the cursor was on, or it is
		// cancelled and the cursor read again.
		for tries := 0; ; tries++ {
			scr := s.screen()
			m := cursorRow.FindStringSubmatch(scr)
			if m == nil {
				t.Fatalf("decision %d: no cursor on the queue:\n%s", i+1, scr)
			}
			id, kind = m[1], []string{"A", "B", "X"}[i%3]
			if kind != "X" && !keepable(t, svc, me, id, kind) {
				kind = "X"
			}
			keys = before
			press(kind)
			prompt := s.waitFor("cancel")
			testwait.For(t, "the prompt on "+id+" to be read", func() bool {
				prompt = s.screen()
				return !strings.Contains(prompt, "Reading conflict-")
			})
			if regexp.MustCompile(regexp.QuoteMeta(id) + `(:| dismissed| would be refused)`).MatchString(prompt) {
				break
			}
			if tries == 3 {
				t.Fatalf("the prompt never named %s, the conflict under the cursor:\n%s", id, prompt)
			}
			s.send("Escape")
			s.waitChange(prompt)
		}
		if i > 0 && i%3 == 1 {
			press("Up") // the rationale used just before
		} else {
			s.typeText(fmt.Sprintf("Decision %d: checked against the traces.", i+1))
		}
		press("Enter")
		s.waitFor("written in") // the undo window of this decision
		perConflict[id] = keys - before
		want[id] = kind
		testwait.For(t, "the cursor to leave "+id+" once decided", func() bool {
			next := cursorRow.FindStringSubmatch(s.screen())
			return next != nil && next[1] != id
		})
	}
	for id, n := range perConflict {
		if n > 3 {
			t.Errorf("%s took %d keys besides the rationale, want at most 3", id, n)
		}
	}
	single := time.Since(start)

	// The ten left: only mine, mark them all, dismiss, a reason, enter.
	before := keys
	press("M")
	s.waitFor("showing only yours")
	press("*")
	s.waitFor("10 marked")
	press("X")
	s.waitFor("Dismiss 10 marked conflicts")
	s.typeText("Duplicates of conflicts already settled.")
	press("Enter")
	s.waitFor("written in")
	press("q") // quitting writes what waits
	if n := keys - before; n > 5 {
		t.Errorf("the batch took %d keys besides the rationale, want at most 5", n)
	}
	t.Logf("20 decisions in %s (%d keys besides rationales), then a batch of 10 in %d keys; %s in all",
		single.Round(time.Millisecond), before, keys-before, time.Since(start).Round(time.Millisecond))

	// The command line shows every decision as made.
	// Quitting wrote the batch; the screen's process may still be ending.
	testwait.Until(testwait.Deadline, func() bool {
		var resolved []model.ConflictSummary
		if err := json.Unmarshal([]byte(ok(t, "--db", db, "list", "--status", "resolved", "--json")), &resolved); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range resolved {
			if c.Resolution != nil && c.Resolution.ResolvedBy == fieldgen.Operator && c.Resolution.EpochResolved > 0 && c.Escalation != nil {
				n++
			}
		}
		return n >= 30
	})
	for id, kind := range want {
		d := showJSON(t, db, id)
		r := d.Conflict.Resolution
		switch {
		case r == nil || r.ResolvedBy != fieldgen.Operator:
			t.Errorf("%s: %+v, want decided by %s", id, r, fieldgen.Operator)
		case kind == "X" && r.Strategy != model.Dismiss:
			t.Errorf("%s: %s, want dismiss", id, r.Strategy)
		case kind == "A" && (r.WinnerID == nil || *r.WinnerID != d.Conflict.UnitA):
			t.Errorf("%s: %+v, want A kept", id, r)
		case kind == "B" && (r.WinnerID == nil || *r.WinnerID != d.Conflict.UnitB):
			t.Errorf("%s: %+v, want B kept", id, r)
		}
	}
	counts := map[model.ConflictStatus]int{}
	var queue []model.ConflictSummary
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "list", "--json")), &queue); err != nil {
		t.Fatal(err)
	}
	for _, r := range queue {
		counts[r.Status]++
	}
	if counts[model.StatusEscalated] != 0 {
		t.Errorf("%d escalated conflicts are left, want none", counts[model.StatusEscalated])
	}
}

// keepable reports whether keeping side of conflict id is a decision the
// field takes from me now.
func keepable(t *testing.T, svc *review.Service, me model.Agent, id, side string) bool {
	t.Helper()
	d, err := svc.Detail(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	winner := d.Conflict.UnitA
	if side == "B" {
		winner = d.Conflict.UnitB
	}
	s, perr := model.HonestStrategy(me, d, winner)
	if perr != nil {
		return false
	}
	return svc.CheckMerge(context.Background(), me.ID, model.MergeRequest{ConflictID: id, Strategy: s,
		Resolution: model.MergeResolution{WinnerID: &winner, Rationale: "—"}}) == nil
}
