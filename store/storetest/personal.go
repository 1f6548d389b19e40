package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"arbiter/model"
	"arbiter/store"
)

// notices writes n notices to agent, one write each, and returns their
// ids in the order written.
func notices(t *testing.T, st store.Field, agent string, n int) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		write(t, st, func(tx store.Tx) error {
			id, err := tx.NotificationInsert(model.Notification{AgentID: agent, Event: model.EventConflictResolved,
				Epoch: int64(i + 1), Summary: fmt.Sprint("notice ", i), CreatedAt: now()})
			ids = append(ids, id)
			return err
		})
	}
	return ids
}

func noticeIDs(ns []model.Notification) []int64 {
	out := []int64{}
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

// The inbox newest first, page after page; the count after a notice; the
// read mark, which only moves forward and is each person's own.
func testInboxRecentAndReadMark(t *testing.T, e Engine) {
	st, _ := field(t, e)
	mine := notices(t, st, "a2", 5)
	theirs := notices(t, st, "a1", 2)
	readTail(t, st, func(tx store.Tx) error {
		all, err := tx.InboxRecent("a2", 0, 0)
		if err != nil {
			return err
		}
		want := slices.Clone(mine)
		slices.Reverse(want)
		if got := noticeIDs(all); !slices.Equal(got, want) {
			t.Fatalf("a2's inbox newest first: %v, want %v", got, want)
		}
		page, err := tx.InboxRecent("a2", 0, 2)
		if err != nil || !slices.Equal(noticeIDs(page), want[:2]) {
			t.Fatalf("the first page of two: %v (%v), want %v", noticeIDs(page), err, want[:2])
		}
		page, err = tx.InboxRecent("a2", page[1].ID, 2)
		if err != nil || !slices.Equal(noticeIDs(page), want[2:4]) {
			t.Fatalf("the page before %d: %v (%v), want %v", want[1], noticeIDs(page), err, want[2:4])
		}
		page, err = tx.InboxRecent("a2", mine[0], 2)
		if err != nil || len(page) != 0 || page == nil {
			t.Fatalf("the page before the oldest: %v (%v), want an empty list", page, err)
		}
		for after, want := range map[int64]int{0: 5, mine[1]: 3, mine[4]: 0} {
			if n, err := tx.InboxCount("a2", after); err != nil || n != want {
				t.Fatalf("a2's notices after %d: %d (%v), want %d", after, n, err, want)
			}
		}
		if n, err := tx.InboxCount("a1", 0); err != nil || n != len(theirs) {
			t.Fatalf("a1's notices: %d (%v), want %d", n, err, len(theirs))
		}
		mark, err := tx.InboxMark("a2")
		if err != nil || mark != 0 {
			t.Fatalf("a read mark before any: %d (%v), want 0", mark, err)
		}
		return nil
	})
	at := now()
	write(t, st, func(tx store.Tx) error { return tx.InboxMarkSet("a2", mine[3], at) })
	write(t, st, func(tx store.Tx) error { return tx.InboxMarkSet("a2", mine[1], at) }) // never back
	write(t, st, func(tx store.Tx) error { return tx.InboxMarkSet("a1", theirs[0], at) })
	read(t, st, func(tx store.Tx) error {
		if mark, err := tx.InboxMark("a2"); err != nil || mark != mine[3] {
			t.Fatalf("a2's mark after moving it to %d, then back to %d: %d (%v), want it kept at %d", mine[3], mine[1], mark, err, mine[3])
		}
		if mark, err := tx.InboxMark("a1"); err != nil || mark != theirs[0] {
			t.Fatalf("a1's mark: %d (%v), want %d", mark, err, theirs[0])
		}
		return nil
	})
	write(t, st, func(tx store.Tx) error { return tx.InboxMarkSet("a2", mine[4], at) })
	readTail(t, st, func(tx store.Tx) error {
		mark, err := tx.InboxMark("a2")
		if err != nil || mark != mine[4] {
			t.Fatalf("a2's mark moved forward to %d: %d (%v)", mine[4], mark, err)
		}
		n, err := tx.InboxCount("a2", mark)
		if err != nil || n != 0 {
			t.Fatalf("unread after reading the newest: %d (%v)", n, err)
		}
		return nil
	})
}

// Notices written by writers at once come newest first, page after page,
// in exactly the reverse of the inbox's order, and the count after any of
// them is where it stands in it.
func testInboxRecentUnderConcurrentWriters(t *testing.T, e Engine) {
	st, name := field(t, e)
	const writers, each = 4, 10
	var wg sync.WaitGroup
	for w := range writers {
		f := e.Open(t, name, store.Options{})
		wg.Go(func() {
			for i := range each {
				err := f.Write(context.Background(), func(tx store.Tx) error {
					epoch, err := tx.EpochTick()
					if err != nil {
						return err
					}
					_, err = tx.NotificationInsert(model.Notification{AgentID: "a2", Event: "e", Epoch: epoch,
						Summary: fmt.Sprint(w, i), CreatedAt: now()})
					return err
				})
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	var order, recent []int64
	readTail(t, st, func(tx store.Tx) error {
		all, err := tx.Inbox("a2", 0, 0)
		order = noticeIDs(all)
		return err
	})
	for before := int64(0); ; {
		var page []model.Notification
		readTail(t, st, func(tx store.Tx) (err error) { page, err = tx.InboxRecent("a2", before, 7); return err })
		recent = append(recent, noticeIDs(page)...)
		if len(page) < 7 {
			break
		}
		before = page[len(page)-1].ID
	}
	slices.Reverse(recent)
	if len(order) != writers*each || !slices.Equal(order, recent) {
		t.Fatalf("the inbox in order %v; newest first, page after page, reversed %v", order, recent)
	}
	readTail(t, st, func(tx store.Tx) error {
		for i, id := range order {
			if n, err := tx.InboxCount("a2", id); err != nil || n != len(order)-1-i {
				t.Fatalf("after notice %d (place %d of %d): %d (%v), want %d", id, i, len(order), n, err, len(order)-1-i)
			}
		}
		return nil
	})
}

// A draft is kept per person, conflict and form, replaced when saved
// again, and removed.
func testDrafts(t *testing.T, e Engine) {
	st, _ := field(t, e)
	pair(t, st, model.StatusEscalated)
	at := now()
	decide := model.Draft{AgentID: "a2", ConflictID: "c1", Form: model.DraftDecide, Strategy: model.Synthesis,
		Choice: "u1", Rationale: "why, at length\n\nand more", Synthesis: "# the new text", SavedAt: at}
	vote := model.Draft{AgentID: "a2", ConflictID: "c1", Form: model.DraftVote, Choice: "u2", Rationale: "for B", SavedAt: at}
	other := model.Draft{AgentID: "a1", ConflictID: "c1", Form: model.DraftDecide, Rationale: "a1's", SavedAt: at}
	write(t, st, func(tx store.Tx) error {
		for _, d := range []model.Draft{decide, vote, other} {
			if err := tx.DraftPut(d); err != nil {
				return err
			}
		}
		return nil
	})
	drafts := func(agent string) []model.Draft {
		var out []model.Draft
		read(t, st, func(tx store.Tx) (err error) { out, err = tx.Drafts(agent, "c1"); return err })
		return out
	}
	if got := drafts("a2"); !slices.Equal(got, []model.Draft{decide, vote}) {
		t.Fatalf("a2's drafts on c1: %+v, want %+v", got, []model.Draft{decide, vote})
	}
	decide.Rationale, decide.Strategy, decide.SavedAt = "second thoughts", model.Authority, at.Add(1e9)
	write(t, st, func(tx store.Tx) error { return tx.DraftPut(decide) })
	if got := drafts("a2"); len(got) != 2 || got[0] != decide {
		t.Fatalf("a2's decision draft saved again: %+v, want %+v", got, decide)
	}
	write(t, st, func(tx store.Tx) error { return tx.DraftDelete("a2", "c1", model.DraftDecide) })
	if got := drafts("a2"); !slices.Equal(got, []model.Draft{vote}) {
		t.Fatalf("a2's drafts after removing the decision's: %+v, want the ballot's only", got)
	}
	if got := drafts("a1"); !slices.Equal(got, []model.Draft{other}) {
		t.Fatalf("a1's drafts: %+v, want its own, untouched", got)
	}
	var none []model.Draft
	read(t, st, func(tx store.Tx) (err error) { none, err = tx.Drafts("a2", "c9"); return err })
	if none == nil || len(none) != 0 {
		t.Fatalf("drafts on a conflict without any: %+v, want an empty list", none)
	}
}
