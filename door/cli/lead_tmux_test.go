package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"arbiter/model"
)

// queueRow is a row of the queue: its mark, then its conflict's id.
var queueRow = regexp.MustCompile(`^. conflict-\d+ `)

// movesTo are the keys that bring the queue's cursor to id's row.
func movesTo(t *testing.T, scr, id string) []string {
	t.Helper()
	at, want, last := -1, -1, -1
	for i, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, "▸ conflict-") {
			at = i
		}
		if queueRow.MatchString(line) && strings.Contains(line, " "+id+" ") {
			want = i // a row, not the preview or a message naming it
		}
		if queueRow.MatchString(line) {
			last = i
		}
	}
	if at < 0 || want < 0 {
		t.Fatalf("no cursor or no %s on the queue:\n%s", id, scr)
	}
	if want == last && want-at > 1 {
		return []string{"G"} // the bottom row
	}
	var out []string
	for ; at < want; at++ {
		out = append(out, "j")
	}
	for ; at > want; at-- {
		out = append(out, "k")
	}
	return out
}

// moveTo brings the queue's cursor to id's row, and returns the keys the
// move took from where the cursor was. The queue may change its order
// while the keys travel (a sweep, a ballot written, another screen's
// decision), so it looks again until the cursor is there.
func moveTo(t *testing.T, s *tmuxSession, id string) []string {
	t.Helper()
	var keys []string
	for tries := 0; ; tries++ {
		scr := s.screen()
		if m := cursorRow.FindStringSubmatch(scr); m != nil && m[1] == id {
			return keys
		}
		if tries == 10 {
			t.Fatalf("the cursor never reached %s:\n%s", id, scr)
		}
		keys = movesTo(t, scr, id)
		s.send(keys...)
		s.waitChange(scr)
	}
}

// ballotFrom opens, from the queue, the prompt of a ballot for side on
// id, and returns the keys that brought the cursor there. Should the
// queue reorder between the cursor's arrival and the key, the prompt
// names another conflict: it is closed and the cursor brought back.
func ballotFrom(t *testing.T, s *tmuxSession, id, side string) []string {
	t.Helper()
	on := regexp.MustCompile(`on\s+` + regexp.QuoteMeta(id) + `:`)
	for tries := 0; ; tries++ {
		keys := moveTo(t, s, id)
		s.send(side)
		scr := s.waitFor("Ballot for " + side)
		if on.MatchString(scr) {
			return keys
		}
		if tries == 3 {
			t.Fatalf("the ballot's prompt never named %s:\n%s", id, scr)
		}
		s.send("Escape")
		s.waitChange(scr)
	}
}

// TestALeadVotesAndAnOperatorSynthesizesWithAFewKeys is the lead's screen
// in a real terminal on the demo field: lead-priya casts three ballots
// (two new, then one of them changed) from the queue in at most 3 keys each besides
// the rationale; the operator writes conflict-012's synthesis from the
// queue in at most 8 keys besides the rationale; the stats screen shows
// the figures `arbiter stats --json` prints.
func TestALeadVotesAndAnOperatorSynthesizesWithAFewKeys(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}

	lead := newTmux(t, 140, 40, env, "--db", db, "--as", "lead-priya")
	lead.waitFor("▸ conflict-", "lead-priya")
	ballots := []struct{ id, side string }{{"conflict-014", "A"}, {"conflict-016", "B"}, {"conflict-016", "A"}}
	for i, b := range ballots {
		lead.waitFor(b.id)
		keys := append(ballotFrom(t, lead, b.id, b.side), b.side)
		lead.typeText(fmt.Sprintf("Ballot %d: read both units in full.", i+1))
		lead.send("Enter")
		keys = append(keys, "Enter")
		lead.waitFor(b.id + ": a ballot for " + b.side)
		if len(keys) > 3 {
			t.Errorf("the ballot on %s took %d keys besides the rationale (%v), want at most 3", b.id, len(keys), keys)
		}
		// The next ballot is cast once this one is written.
		lead.waitFor("Your vote on " + b.id + " is counted")
		lead.waitFor("▸ conflict-")
	}
	lead.send("q")
	for _, b := range []struct{ id, side string }{{"conflict-014", "A"}, {"conflict-016", "A"}} {
		d := showJSON(t, db, b.id)
		want := d.Conflict.UnitA
		if b.side == "B" {
			want = d.Conflict.UnitB
		}
		found := false
		for _, bl := range d.Ballots {
			found = found || (bl.VoterID == "lead-priya" && bl.Choice == want && strings.HasPrefix(bl.Rationale, "Ballot "))
		}
		if !found {
			t.Errorf("%s: no ballot of lead-priya for %s: %+v", b.id, b.side, d.Ballots)
		}
	}

	op := newTmux(t, 140, 40, env, "--db", db, "--as", "ops-maya")
	scr := op.waitFor("▸ conflict-", "conflict-012")
	keys := append(movesTo(t, scr, "conflict-012"), "=")
	op.send(keys...)
	op.waitFor("Decide conflict-012", "1 alternative to settle")
	op.send("M-b")
	op.waitFor("no alternative is left")
	op.typeText("Distinct first attempts are the load Keel sees.")
	op.send("C-s")
	op.waitFor("Write this decision?")
	op.send("y")
	keys = append(keys, "M-b", "C-s", "y")
	op.waitFor("Written.", "conflict-012 is now resolved")
	if len(keys) > 8 {
		t.Errorf("the synthesis took %d keys besides the rationale (%v), want at most 8", len(keys), keys)
	}
	d := showJSON(t, db, "conflict-012")
	if r := d.Conflict.Resolution; r == nil || r.Strategy != model.Synthesis || r.SynthesisUnitID == nil {
		t.Fatalf("conflict-012 = %+v", d.Conflict)
	}

	// The stats screen and the command line agree. A confirmed decision
	// leaves the screen on the queue.
	op.waitFor("▸ conflict-")
	op.send("#")
	scr = op.waitFor("Open conflicts:")
	var s model.Stats
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "stats", "--json")), &s); err != nil {
		t.Fatal(err)
	}
	open := 0
	for _, o := range s.Open {
		open += o.Count
	}
	if want := fmt.Sprintf("Open conflicts: %d", open); !strings.Contains(scr, want) {
		t.Errorf("the stats screen lacks %q:\n%s", want, scr)
	}
	for _, o := range s.Open {
		status := strings.ReplaceAll(string(o.Status), "_", " ")
		n := 0
		for _, p := range s.Open {
			if p.Status == o.Status {
				n += p.Count
			}
		}
		if !regexp.MustCompile(regexp.QuoteMeta(status) + ` +[█▏▎▍▌▋▊▉]+ +` + fmt.Sprint(n) + `\b`).MatchString(scr) {
			t.Errorf("the stats screen has no bar of %d for %s:\n%s", n, status, scr)
		}
	}
	op.send("G")
	scr = op.waitFor("Ballots, by voter")
	for _, v := range s.Voters {
		if want := fmt.Sprintf("%d cast · %d missed", v.Cast, v.Missed); !strings.Contains(scr, want) {
			t.Errorf("the stats screen lacks %s's %q:\n%s", v.Voter, want, scr)
		}
	}
}
