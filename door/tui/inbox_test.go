package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/demo"

	"github.com/charmbracelet/x/ansi"
)

// The inbox, at 80×24 and 160×48: the person's notices newest first,
// whole and wrapped, the unread marked and counted in the header until
// it opens; enter opens the notice's conflict, back returns to the
// inbox; the read mark outlives the screen.
func TestInboxListsNoticesNewestFirstAndOpensTheirConflict(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			path := demoField(t)
			svc := openService(t, path, false)
			page, err := svc.InboxPage(context.Background(), "lead-kenji", 0, 100)
			if err != nil || page.Unread == 0 || page.Unread != len(page.Notices) {
				t.Fatalf("lead-kenji's notices on the demo: %+v (%v), want some, all unread", page, err)
			}
			s := start(t, svc, "lead-kenji", size.w, size.h)
			s.waitFor(fmt.Sprintf("%d unread · %s", page.Unread, keyOf(s.k.Inbox)))
			s.press(s.k.Inbox)
			s.waitFor("Inbox", "newest first", fmt.Sprintf("● %d unread", page.Unread))
			f := s.waitGone(" unread · ") // read: the header's count goes
			newest := page.Notices[0]
			if first := strings.Index(f, *newest.ConflictID+" · "); first < 0 || first > strings.Index(f, *page.Notices[1].ConflictID+" · ") {
				t.Errorf("the newest notice (%s) is not first:\n%s", *newest.ConflictID, f)
			}
			if !strings.Contains(strings.Join(strings.Fields(f), " "), strings.Join(strings.Fields(newest.Summary), " ")) {
				t.Errorf("the newest notice is not shown whole (%q):\n%s", newest.Summary, f)
			}
			noCutWords(t, f)
			golden(t, fmt.Sprintf("inbox-%dx%d", size.w, size.h), f)

			s.press(s.k.Down)
			s.press(s.k.Open)
			s.waitFor(*page.Notices[1].ConflictID+"  ", "Rules:")
			s.press(s.k.Back)
			s.waitFor("newest first")

			again := start(t, openService(t, path, false), "lead-kenji", size.w, size.h)
			again.waitFor("▸ conflict-")
			if f := again.Frame(); strings.Contains(f, "unread") {
				t.Errorf("the notices read on one screen are unread on the next:\n%s", f)
			}
		})
	}
}

// waitForWords waits until the frame shows text, however its lines
// wrap it, and returns the frame.
func waitForWords(s *driver, text string) string {
	s.t.Helper()
	want := strings.Join(strings.Fields(text), " ")
	return ansi.Strip(s.until(testwait.Deadline, fmt.Sprintf("%q", text), func(frame string) bool {
		return strings.Contains(strings.Join(strings.Fields(ansi.Strip(frame)), " "), want)
	}))
}

// noCutWords fails if a line of the frame ends in "…" (a word cut).
func noCutWords(t *testing.T, frame string) {
	t.Helper()
	for i, l := range strings.Split(frame, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("line %d is cut: %q", i, l)
		}
	}
}

// clock is a screen's clock a test moves.
type clock struct{ at atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.at.Store(t.UnixNano())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.at.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.at.Add(int64(d)) }

// A toast says that the vote the person cast a ballot in closed, when
// another's ballot closes it; it takes no key, and goes once its time is
// up on the screen's clock.
func TestToastSaysAVoteClosedAndGoesAfterItsTime(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	clk := newClock(screenNow)
	s := start(t, svc, "lead-priya", 80, 24, func(o *Options) { o.Now = clk.now })
	s.waitFor("▸ conflict-", "unread")
	s.settle()
	other := openService(t, path, false)
	for _, voter := range []string{"lead-tomas", "lead-kenji"} {
		if _, err := other.Vote(context.Background(), voter, model.VoteRequest{ConflictID: "conflict-015", Choice: "B",
			Rationale: voter + " agrees: EU first."}); err != nil {
			t.Fatal(err)
		}
	}
	d := detailOf(t, other, "conflict-015")
	want := "The vote on conflict-015 closed: " + *d.Conflict.Resolution.WinnerID + " (B) prevails."
	f := waitForWords(s, "◆ "+want)
	golden(t, "toast-80x24", f)

	// Keys go to the screen under it.
	before := strings.Index(f, "▸ ")
	s.press(s.k.Down)
	if f := s.Frame(); strings.Index(f, "▸ ") == before || !strings.Contains(f, "◆ ") {
		t.Errorf("down under the toast did not move the cursor, or closed the toast:\n%s", f)
	}
	clk.advance(toastFor - time.Second)
	s.send(toastTickMsg{})
	s.waitFor("◆ ")
	clk.advance(2 * time.Second)
	s.send(toastTickMsg{})
	s.waitGone("◆ ")
}

// The inbox wraps a notice whole at 80 columns, its words uncut, however
// long the rationale it carries.
func TestInboxWrapsALongNoticeWhole(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	why := strings.Repeat("Fourteen nightly runs outweigh a one-day re-run; ", 12) + "that is the whole of it."
	if _, err := svc.Merge(context.Background(), demo.Operator, model.MergeRequest{ConflictID: "conflict-012",
		Strategy: model.Authority, Resolution: model.MergeResolution{Rationale: why, WinnerID: model.Ptr("mem-039")}}); err != nil {
		t.Fatal(err)
	}
	s := start(t, svc, "lead-kenji", 80, 48)
	s.waitFor("▸ conflict-")
	s.press(s.k.Inbox)
	f := s.waitFor("newest first", "that is the whole of it.")
	noCutWords(t, f)
	if flat := strings.Join(strings.Fields(f), " "); !strings.Contains(flat, "Why: "+strings.TrimSpace(why)) {
		t.Errorf("the inbox does not show the rationale whole:\n%s", f)
	}
}
