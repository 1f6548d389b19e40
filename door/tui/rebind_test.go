package tui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/queueview"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/demo"
	arbiterfield "arbiter/store/field"

	"charm.land/bubbles/v2/key"
)

// A rebinding must move a binding everywhere it acts: the footer, the
// help and every hint name the new key, the new key does what the old
// one did, and the old key no longer does.

// place is somewhere a binding acts, and how to get there from the
// queue's first frame.
type place struct {
	name  string
	as    string
	w, h  int
	empty bool // an empty field instead of the demo
	reach func(s *driver)
}

// effect is what a binding's key does there, as the test sees it.
type effect struct {
	what string
	did  func(s *driver, before string) bool
}

// check is one place a binding acts: what there names its key (each
// with %s for the key), and what the key does.
type check struct {
	at    place
	shows []string
	does  effect
	// again returns to the place after an old key left it.
	again func(s *driver)
	// anyKey: every key but another binding's does it, the old key too.
	anyKey bool
}

func TestEveryRebindingMovesTheBindingEverywhereItActs(t *testing.T) {
	template := demoField(t)
	cases := []struct {
		name   string
		to     string
		checks []check
	}{
		{"up", "ctrl+f", []check{
			{at: queueAt("the queue, one row down", func(s *driver) { s.press(s.k.Down); s.waitFor("▸ conflict-011") }),
				does: showing("▸ conflict-008")},
			{at: atConflictEnd, does: scrolling},
			{at: decideAt("the strategies, one down", func(s *driver) { s.press(s.k.Down); s.waitFor("▸ confidence_weighted") }),
				does: showing("▸ last_write_wins")},
		}},
		{"down", "n", []check{
			{at: atQueue, does: showing("▸ conflict-011")},
			{at: atConflict, does: scrolling},
			{at: atDecide, does: showing("▸ confidence_weighted")},
		}},
		{"top", "T", []check{
			{at: atQueueEnd, does: showing("▸ conflict-008")},
			{at: atConflictEnd, does: scrolling},
		}},
		{"bottom", "E", []check{
			{at: atQueue, does: showing("▸ conflict-016")},
			{at: atConflict, does: scrolling},
		}},
		{"page_up", "U", []check{
			{at: atQueueEnd, does: showing("▸ conflict-008")},
			{at: atConflictEnd, does: scrolling},
		}},
		{"page_down", "F", []check{
			{at: atQueue, does: showing("▸ conflict-016")},
			{at: atConflict, does: scrolling},
		}},
		{"open", "o", []check{
			{at: atQueue, shows: []string{"%s open"}, does: showing("· version 2 · detected")},
			{at: atInbox, shows: []string{"%s open"}, does: showing("Rules:")},
		}},
		{"filter", "f", []check{
			{at: atQueue, shows: []string{"%s filter"}, does: showing("\n/ ")},
		}},
		{"keep_filter", "ctrl+o", []check{
			{at: atFilter, shows: []string{"%s keep filter"}, does: showing("enter open")},
		}},
		{"sort", "Y", []check{
			{at: atQueue, does: showing("by type")},
		}},
		{"all_statuses", "%", []check{
			{at: atQueue, shows: []string{"%s all statuses"}, does: showing("showing all statuses")},
			{at: atEmptyQueue, shows: []string{"Press %s to see every status"}, does: showing("no conflicts yet")},
		}},
		{"mine_only", "N", []check{
			{at: atQueue, shows: []string{"%s mine only"}, does: showing("showing only yours")},
		}},
		{"refresh", "ctrl+t", []check{
			{at: atQueue, does: reloading},
		}},
		{"stats", "@", []check{
			{at: atQueue, does: showing("Open conflicts: 13")},
		}},
		{"inbox", "@", []check{
			{at: atQueue, shows: []string{"unread · %s"}, does: showing("newest first")},
			{at: atConflict, does: showing("newest first")},
			{at: atInbox, does: hiding("newest first")},
		}},
		{"preview_pane", "v", []check{
			{at: atQueue, shows: []string{"%s preview"}, does: hiding("╮")},
			{at: atNarrowQueue, does: showing("The preview shows beside the queue on a terminal of 140 columns or more")},
		}},
		{"next_view", "}", []check{
			{at: atViews, shows: []string{"%s next view", "[ %s switch views"}, does: showing("the view “Mine”")},
		}},
		{"prev_view", "{", []check{
			{at: atViews, shows: []string{"%s ] switch views"}, does: showing("the view “Overdue”")},
		}},
		{"keep_a", "K", []check{
			{at: atQueue, shows: []string{"%s keep A"}, does: showing("Keep A conflict-008:")},
			{at: atPlainConflict, shows: []string{"%s keep A"}, does: showing("Keep A conflict-011:")},
		}},
		{"keep_b", "J", []check{
			{at: atQueue, shows: []string{"%s keep B"}, does: showing("Keep B conflict-008:")},
			{at: atPlainConflict, shows: []string{"%s keep B"}, does: showing("Keep B conflict-011:")},
		}},
		{"dismiss", "Q", []check{
			{at: atQueue, shows: []string{"%s dismiss"}, does: showing("Dismiss conflict-008: not a real conflict")},
			{at: atPlainConflict, shows: []string{"%s dismiss"}, does: showing("Dismiss conflict-011: not a real conflict")},
		}},
		{"mark", "x", []check{
			{at: atQueue, shows: []string{"%s mark"}, does: showing("1 marked")},
		}},
		{"mark_all", "&", []check{
			{at: atQueue, does: showing("8 marked")},
		}},
		{"accept", "ctrl+w", []check{
			{at: atPrompt, shows: []string{"%s write it"}, does: showing("— written in")},
		}},
		{"undo", "ctrl+z", []check{
			{at: atWaiting, shows: []string{"%s undo"}, does: showing("Undone:")},
		}},
		{"approve", "ctrl+x", []check{
			{at: atQueue, does: showing("Approve plan-juno's proposal")},
			{at: atConflict, shows: []string{"%s approve"}, does: showing("Approve plan-juno's proposal")},
		}},
		{"modify", "I", []check{
			{at: atConflict, shows: []string{"%s modify"}, does: showing("┃ ## Phase 0 gate: met for same-currency")},
		}},
		{"send_back", "ctrl+k", []check{
			{at: atQueue, does: showing("Send back conflict-008 to")},
			{at: atConflict, shows: []string{"%s send back"}, does: showing("Send back conflict-008 to")},
			{at: atPlainConflict, shows: []string{"%s send back"}, does: showing("Send back conflict-011 to")},
		}},
		{"next_pane", "ctrl+t", []check{
			{at: atNarrowConflict, shows: []string{"%s switches", "%s switch pane"}, does: showing("The 0.004 % leaves out")},
		}},
		{"sync_scroll", "Z", []check{
			{at: atConflict, shows: []string{"%s lock scroll"}, does: showing("Scrolling both panes together (Z to unlock).")},
		}},
		{"diff", "W", []check{
			{at: atConflict, shows: []string{"%s word diff"}, does: changing},
		}},
		{"three_way", "#", []check{
			{at: atRevisedConflict, shows: []string{"%s three-way"}, does: showing("base mem-038")},
		}},
		{"raw", "^", []check{
			{at: atConflict, does: changing},
		}},
		{"whole_header", "|", []check{
			{at: atPlainConflict, does: showing("goes back to the units")},
		}},
		{"history", "H", []check{
			{at: atConflict, shows: []string{"%s history"}, does: showing("Notifications")},
		}},
		{"reopen", "O", []check{
			{at: atResolved, shows: []string{"%s reopen"}, does: showing("escalated again, to ")},
		}},
		{"drop_draft", "ctrl+x", []check{
			{at: atDraftConflict, shows: []string{"%s drops it."}, does: showing("is dropped")},
		}},
		{"decide", "e", []check{
			{at: atConflict, shows: []string{"%s decide"}, does: showing("Decide conflict-008")},
			{at: conflictAt("a conflict not put to a vote, after vote", func(s *driver) { s.press(s.k.Vote) }),
				shows: []string{"press %s to decide it"}, does: showing("Decide conflict-008")},
		}},
		{"vote", "V", []check{
			{at: atBallotConflict, shows: []string{"%s vote"}, does: showing("Vote on conflict-014")},
			{at: ballotConflictAt("a conflict put to a vote, after decide", func(s *driver) { s.press(s.k.Decide) }),
				shows: []string{"press %s to vote"}, does: showing("Vote on conflict-014")},
		}},
		{"next", "ctrl+n", []check{
			{at: atDecide, shows: []string{"%s next field"}, does: showing("▍Winner")},
			{at: atBallot, shows: []string{"%s next field", "%s to the rationale"}, does: showing("▍Rationale")},
		}},
		{"prev", "ctrl+g", []check{
			{at: atDecide, does: showing("▍Rationale")},
			{at: atBallot, does: showing("▍Rationale")},
		}},
		{"choose_a", "x", []check{
			{at: winnerAt("B", func(s *driver) { s.press(s.k.ChooseB) }), shows: []string{"%s for A"}, does: choosing("conflict-008", "A"),
				again: backTo("▍Winner")},
			{at: ballotAt("B", func(s *driver) { s.press(s.k.ChooseB) }), shows: []string{"%s for A"}, does: choosing("conflict-014", "A"),
				again: backTo("▍For")},
		}},
		{"choose_b", "z", []check{
			{at: winnerAt("A", func(s *driver) { s.press(s.k.ChooseA) }), shows: []string{"%s for B"}, does: choosing("conflict-008", "B"),
				again: backTo("▍Winner")},
			{at: ballotAt("A", func(s *driver) { s.press(s.k.ChooseA) }), shows: []string{"%s for B"}, does: choosing("conflict-014", "B"),
				again: backTo("▍For")},
		}},
		{"submit", "ctrl+o", []check{
			{at: atDismissal, shows: []string{"%s submit"}, does: showing("Write this decision?")},
			{at: atBallotFilled, shows: []string{"%s submit"}, does: showing("Cast this vote?")},
		}},
		{"editor", "ctrl+o", []check{
			{at: atSynthesis, shows: []string{"%s $EDITOR", "%s opens $EDITOR with both units"}, does: showing("Typed in the editor.")},
		}},
		{"preview", "ctrl+o", []check{
			{at: atSynthesisTyped, shows: []string{"%s preview"}, does: showing("A bold claim.")},
		}},
		{"suggest", "ctrl+l", []check{
			{at: atRevisedSynthesis, shows: []string{"%s suggestion"}, does: showing("<<<<<<< A")},
		}},
		{"synthesize", "~", []check{
			{at: atQueue, does: showing("▸ synthesis")},
			{at: atRevisedConflict, does: showing("1 alternative to settle")},
		}},
		{"take_a", "alt+x", []check{
			{at: atRevisedSuggestion, shows: []string{"%s take A", "%s takes A's"}, does: showing("Took A's text")},
		}},
		{"take_b", "alt+z", []check{
			{at: atRevisedSuggestion, shows: []string{"%s take B", "%s B's"}, does: showing("Took B's text")},
		}},
		{"confirm", "o", []check{
			{at: atDecideConfirm, shows: []string{"%s yes", "%s write it"}, does: showing("Written."), again: resubmit("Write this decision?")},
			{at: atVoteConfirm, shows: []string{"%s yes", "%s cast it"}, does: showing("is counted:"), again: resubmit("Cast this vote?")},
		}},
		{"cancel", "x", []check{
			{at: atDecideConfirm, shows: []string{"%s no", "X go back (default)"}, does: hiding("Write this decision?"), anyKey: true},
			{at: atVoteConfirm, shows: []string{"%s no", "X go back (default)"}, does: hiding("Cast this vote?"), anyKey: true},
		}},
		{"back", "ctrl+b", []check{
			{at: queueAt("the queue, filtered to nothing", func(s *driver) {
				atFilter.reach(s)
				s.press(s.k.KeepFilter)
				s.waitFor(keyOf(s.k.Open) + " open")
			}), shows: []string{"Press %s to clear the filter"}, does: showing("conflict-008")},
			{at: atFilter, shows: []string{"%s back"}, does: showing("conflict-008")},
			{at: atConflict, shows: []string{"%s back"}, does: showing("showing waiting for people")},
			{at: atDecide, shows: []string{"%s back"}, does: showing("Rules:")},
			{at: atBallot, shows: []string{"%s back"}, does: showing("Rules:")},
			{at: atHelp, shows: []string{"%s back"}, does: hiding("where you are"), anyKey: true},
			{at: atPrompt, shows: []string{"%s cancel"}, does: hiding("Dismiss conflict-008")},
		}},
		{"help", "!", []check{
			{at: atQueue, shows: []string{"%s help"}, does: showing("The queue — where you are")},
			{at: atConflict, shows: []string{"%s help"}, does: showing("A conflict — where you are")},
			{at: atBallot, shows: []string{"%s help"}, does: showing("Forms — where you are"), again: backTo("▍For")},
		}},
		{"quit", "x", []check{
			{at: atQueue, shows: []string{"%s quit"}, does: quitting},
			{at: atConflict, does: quitting},
			{at: atTooSmall, shows: []string{"press %s to quit"}, does: quitting},
		}},
		{"force_quit", "ctrl+q", []check{
			{at: atQueue, does: quitting},
			{at: atFilter, does: quitting},
			{at: atDismissal, does: quitting},
			{at: atDecideConfirm, does: quitting},
			{at: atHelp, shows: []string{"%s quit"}, does: quitting, again: func(s *driver) {
				s.press(s.k.Help) // the old key closed it, as any key does
				s.waitFor("where you are")
			}},
			{at: place{"a form, too small", demo.Operator, 140, 40, false, func(s *driver) {
				atDismissal.reach(s)
				s.send(windowSize(50, 10))
				s.waitFor("Terminal too small")
			}}, shows: []string{"press %s to quit"}, does: quitting},
		}},
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.name)
	}
	if want := keymap.Names(); !slices.Equal(names, want) {
		t.Fatalf("the cases cover %v, want every binding: %v", names, want)
	}
	editor := filepath.Join(t.TempDir(), "editor")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho 'Typed in the editor.' > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EDITOR", editor)
	t.Setenv("VISUAL", "")

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, err := keymap.New(map[string][]string{c.name: {c.to}})
			if err != nil {
				t.Fatal(err)
			}
			old := bindingOf(keymap.Default(), c.name)
			now := bindingOf(k, c.name)
			t.Run("help", func(t *testing.T) {
				s := startAt(t, template, k, atHelp)
				wantShown(t, s, "%s "+now.Help().Desc, c.to, keyOf(old))
			})
			for _, ch := range c.checks {
				t.Run(ch.at.name, func(t *testing.T) {
					s := startAt(t, template, k, ch.at)
					for _, show := range ch.shows {
						wantShown(t, s, show, c.to, keyOf(old))
					}
					before := s.Frame()
					if ch.does.did(s, before) {
						t.Fatalf("%s before any key was pressed:\n%s", ch.does.what, before)
					}
					for _, o := range old.Keys() {
						if ch.anyKey || slices.Contains(now.Keys(), o) {
							continue
						}
						s.keys(o)
						if !s.settle() && ch.does.what != quitting.what {
							t.Fatalf("the screen stopped after the old key %s", o)
						}
						time.Sleep(50 * time.Millisecond) // the point: the old key's command would have acted by now
						if ch.does.did(s, before) {
							t.Fatalf("the old key %s still %s:\n%s", o, ch.does.what, s.Frame())
						}
						if ch.again != nil {
							ch.again(s)
						}
						before = s.Frame()
					}
					s.keys(c.to)
					if !testwait.Until(testwait.Deadline, func() bool { return ch.does.did(s, before) }) {
						t.Fatalf("the new key %s never %s:\n%s", c.to, ch.does.what, s.Frame())
					}
				})
			}
		})
	}
}

// startAt opens the screen with the bindings k on a copy of the demo
// field (or an empty one) and goes to p.
func startAt(t *testing.T, template string, k keymap.Map, p place) *driver {
	t.Helper()
	path := filepath.Join(t.TempDir(), "field.db")
	if p.empty {
		path = emptyField(t)
	} else {
		copyFile(t, template, path)
	}
	w, h := p.w, p.h
	if w == 0 {
		w, h = 140, 40
	}
	s := start(t, openService(t, path, false), p.as, w, h, func(o *Options) {
		o.Keys = k
		if p.name == atWaiting.name {
			o.UndoWindow = time.Minute // long enough to undo
		}
		if p.name == atViews.name {
			o.Views = testViews(t)
		}
	})
	p.reach(s)
	return s
}

// testViews are views as a config file gives them: Mine, then Overdue.
func testViews(t testing.TB) []queueview.View {
	t.Helper()
	var out []queueview.View
	for _, v := range [][2]string{{"Mine", "mine"}, {"Overdue", "due:overdue"}} {
		view, err := queueview.Parse(v[0], v[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, view)
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// spaces are runs of blanks: the help's columns pad a key to the widest.
var spaces = regexp.MustCompile(` +`)

// wantShown waits until the screen shows pattern with the new key, and
// checks that it does not show it with the old one.
func wantShown(t *testing.T, s *driver, pattern, now, old string) {
	t.Helper()
	want := spaces.ReplaceAllString(strings.ReplaceAll(pattern, "%s", now), " ")
	gone := spaces.ReplaceAllString(strings.ReplaceAll(pattern, "%s", old), " ")
	var f string
	if !testwait.Until(testwait.Deadline, func() bool { f = spaces.ReplaceAllString(s.Frame(), " "); return strings.Contains(f, want) }) {
		t.Fatalf("the screen never showed %q:\n%s", want, s.Frame())
	}
	if !strings.Contains(want, gone) && strings.Contains(f, gone) {
		t.Errorf("the screen still shows %q:\n%s", gone, s.Frame())
	}
}

func bindingOf(k keymap.Map, name string) key.Binding {
	for _, e := range k.Entries() {
		if e.Name == name {
			return e.Binding
		}
	}
	panic("no binding " + name)
}

// Effects.

func showing(text string) effect {
	return effect{"shows " + text, func(s *driver, _ string) bool { return strings.Contains(s.Frame(), text) }}
}

func hiding(text string) effect {
	return effect{"hides " + text, func(s *driver, _ string) bool { return !strings.Contains(s.Frame(), text) }}
}

var (
	changing  = effect{"changes the screen", func(s *driver, before string) bool { return s.Frame() != before }}
	scrolling = effect{"scrolls", changing.did}
	quitting  = effect{"quits", func(s *driver, _ string) bool { return !s.settle() }}
	reloading = effect{"reloads the queue", func(s *driver, _ string) bool { return s.loads() > s.baseLoads }}
)

// choosing: the form shows side ("A" or "B") of conflict chosen.
func choosing(conflict, side string) effect {
	return effect{"chooses " + side, func(s *driver, _ string) bool {
		c := detailOf(s.t, s.svc, conflict).Conflict
		id := c.UnitA
		if side == "B" {
			id = c.UnitB
		}
		return strings.Contains(s.Styled(), sidesView(NewStyles(Theme{Dark: true}), c, id))
	}}
}

// Places.

var (
	atQueue      = queueAt("the queue", func(*driver) {})
	atQueueEnd   = queueAt("the queue, at its end", func(s *driver) { s.press(s.k.Bottom); s.waitFor("▸ conflict-016") })
	atEmptyQueue = place{"an empty queue", "", 100, 20, true, func(s *driver) { s.waitFor("Nothing waits for a person.") }}
	atFilter     = queueAt("the filter, typed", func(s *driver) {
		s.press(s.k.Filter)
		s.waitFor("\n/ ")
		s.typeText("zzz")
		s.waitFor("No conflict matches")
	})
	// atHelp is the help on a terminal tall enough to show all of it.
	atHelp = place{"the help", demo.Operator, 140, 400, false, func(s *driver) {
		s.waitFor("▸ conflict-008", "authority 10")
		s.press(s.k.Help)
		s.waitFor("where you are", "previous field")
	}}
	// atNarrowQueue is the queue too narrow for the preview; atViews, the
	// queue with views (startAt gives it testViews).
	atNarrowQueue = place{"the queue, narrow", demo.Operator, 100, 30, false, func(s *driver) { s.waitFor("▸ conflict-008") }}
	atViews       = place{"the queue with views", demo.Operator, 140, 40, false, func(s *driver) {
		s.waitFor("▸ conflict-008", "authority 10", "Waiting")
	}}
	// atPrompt is a quick dismissal of conflict-008 with its rationale
	// typed; atWaiting, that dismissal in its undo window.
	atPrompt = queueAt("a quick decision's prompt", func(s *driver) {
		s.press(s.k.Dismiss)
		s.waitFor("Dismiss conflict-008: not a real conflict")
		s.typeText("Different payment classes.")
		s.waitFor("Different payment classes.")
	})
	atWaiting = place{"a decision waiting to be written", demo.Operator, 140, 40, false, func(s *driver) {
		atPrompt.reach(s)
		s.press(s.k.Accept)
		s.waitFor("written in")
	}}
	atResolved = conflictAt("a resolved conflict", func(s *driver) {
		s.press(s.k.Back)
		s.press(s.k.AllStatuses)
		s.waitFor("showing all statuses")
		openByFilter(s, "conflict-002")
		s.waitFor("Resolved")
	})

	atConflict = conflictAt("a conflict", func(*driver) {})
	// atPlainConflict is one without a proposal: conflict-011.
	atPlainConflict = conflictAt("a conflict without a proposal", func(s *driver) {
		s.press(s.k.Back)
		openByFilter(s, "conflict-011")
		s.waitFor("Routed to you")
	})
	atConflictEnd = conflictAt("a conflict, at its end", func(s *driver) {
		before := s.Frame()
		s.press(s.k.Bottom)
		s.settle()
		if s.Frame() == before {
			s.t.Fatal("the conflict's panes do not scroll")
		}
	})
	atNarrowConflict = place{"a narrow conflict", demo.Operator, 90, 30, false, func(s *driver) {
		open008(s)
		s.waitFor("Shadow reconciliation")
	}}
	atInbox         = queueAt("the inbox", func(s *driver) { s.press(s.k.Inbox); s.waitFor("newest first") })
	atDraftConflict = place{"a conflict with a draft left on it", demo.Operator, 140, 40, false, func(s *driver) {
		if err := s.svc.DraftSave(context.Background(), model.Draft{AgentID: demo.Operator, ConflictID: "conflict-008",
			Form: model.DraftDecide, Strategy: model.Dismiss, Rationale: "Left unwritten."}); err != nil {
			s.t.Fatal(err)
		}
		open008(s)
		s.waitFor("drops it.")
	}}
	atTooSmall = queueAt("a screen too small", func(s *driver) {
		s.send(windowSize(50, 10))
		s.waitFor("Terminal too small")
	})

	// atRevisedConflict is conflict-012, whose units revise one earlier
	// unit; atRevisedSynthesis, its synthesis being written.
	atRevisedConflict = queueAt("a conflict with an ancestor", func(s *driver) {
		openByFilter(s, "conflict-012")
		s.waitFor("A mem-039")
	})
	atRevisedSynthesis = queueAt("the synthesis of a conflict with an ancestor", func(s *driver) {
		atRevisedConflict.reach(s)
		s.press(s.k.Decide)
		s.waitFor("Decide conflict-012", "▍Strategy")
		pickStrategy(s, 4, "synthesis")
		s.press(s.k.Next)
		s.typeText("Both.")
		s.press(s.k.Next)
		s.waitFor("▍Synthesis")
	})

	atRevisedSuggestion = queueAt("the suggested synthesis of a conflict with an ancestor", func(s *driver) {
		atRevisedConflict.reach(s)
		s.press(s.k.Synthesize)
		s.waitFor("Decide conflict-012", "1 alternative to settle")
	})

	atDecide    = decideAt("the decision form", func(*driver) {})
	atDismissal = decideAt("a dismissal written", func(s *driver) {
		pickStrategy(s, 7, "dismiss")
		s.press(s.k.Next)
		s.typeText("Different payment classes.")
		s.waitFor("Different payment classes.")
	})
	atSynthesis = decideAt("a synthesis", func(s *driver) {
		pickStrategy(s, 4, "synthesis")
		s.press(s.k.Next)
		s.typeText("Both.")
		s.press(s.k.Next)
		s.waitFor("▍Synthesis")
	})
	atSynthesisTyped = place{"a synthesis typed", demo.Operator, 140, 40, false, func(s *driver) {
		atSynthesis.reach(s)
		s.typeText("A **bold** claim.")
		s.waitFor("A **bold** claim.")
	}}
	atDecideConfirm = place{"a decision's confirmation", demo.Operator, 140, 40, false, func(s *driver) {
		atDismissal.reach(s)
		s.press(s.k.Submit)
		s.waitFor("Write this decision?")
	}}

	atBallotConflict = ballotConflictAt("a conflict put to a vote", func(*driver) {})
	atBallot         = ballotAt("the ballot", func(*driver) {})
	atBallotFilled   = ballotAt("a ballot written", func(s *driver) {
		s.press(s.k.ChooseA)
		s.press(s.k.Next)
		s.typeText("Cheap insurance.")
		s.waitFor("Cheap insurance.")
	})
	atVoteConfirm = place{"a ballot's confirmation", "lead-priya", 140, 40, false, func(s *driver) {
		atBallotFilled.reach(s)
		s.press(s.k.Submit)
		s.waitFor("Cast this vote?")
	}}
)

func queueAt(name string, then func(*driver)) place {
	return place{name, demo.Operator, 140, 40, false, func(s *driver) {
		s.waitFor("▸ conflict-008", "authority 10")
		s.baseLoads = s.loads()
		then(s)
	}}
}

func open008(s *driver) {
	s.waitFor("▸ conflict-008", "authority 10")
	s.press(s.k.Open)
	s.waitFor("A mem-023", "Rules:")
}

// conflictAt is conflict-008, its units formatted, in a terminal short
// enough for its panes to scroll.
func conflictAt(name string, then func(*driver)) place {
	return place{name, demo.Operator, 140, 24, false, func(s *driver) {
		open008(s)
		s.waitFormatted()
		s.settle()
		then(s)
	}}
}

func decideAt(name string, then func(*driver)) place {
	return place{name, demo.Operator, 140, 40, false, func(s *driver) {
		open008(s)
		s.press(s.k.Decide)
		s.waitFor("Decide conflict-008", "▍Strategy")
		then(s)
	}}
}

// winnerAt is the decision form on its choice of a winner, side chosen
// by choose.
func winnerAt(side string, choose func(*driver)) place {
	return decideAt("the choice of a winner, "+side+" chosen", func(s *driver) {
		s.press(s.k.Next)
		s.waitFor("▍Winner")
		choose(s)
		s.settle()
	})
}

func pickStrategy(s *driver, downs int, name string) {
	for range downs {
		s.press(s.k.Down)
	}
	s.waitFor("▸ " + name)
}

// ballotConflictAt is conflict-014, put to a vote, seen by lead-priya.
func ballotConflictAt(name string, then func(*driver)) place {
	return place{name, "lead-priya", 140, 40, false, func(s *driver) {
		s.waitFor("conflict-014")
		s.press(s.k.Filter)
		s.typeText("conflict-014")
		s.waitFor("▸ conflict-014", "/ conflict-014")
		s.press(s.k.KeepFilter)
		s.press(s.k.Open)
		s.waitFor("conflict-014  ", "Rules: ")
		then(s)
	}}
}

func ballotAt(name string, then func(*driver)) place {
	p := ballotConflictAt(name, func(s *driver) {
		s.press(s.k.Vote)
		s.waitFor("Vote on conflict-014", "▍For")
		then(s)
		s.settle()
	})
	return p
}

// backTo goes back to the choice of a side (area) after an old key, now
// text, went to the rationale.
func backTo(area string) func(*driver) {
	return func(s *driver) {
		for range 3 {
			if strings.Contains(s.Frame(), area) {
				return
			}
			s.press(s.k.Prev)
		}
		s.waitFor(area)
	}
}

// resubmit asks again for the confirmation an old key answered No to.
func resubmit(question string) func(*driver) {
	return func(s *driver) {
		s.waitGone(question)
		s.press(s.k.Submit)
		s.waitFor(question)
	}
}

func emptyField(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "empty.db")
	st, err := arbiterfield.Create(context.Background(), path, model.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return path
}
