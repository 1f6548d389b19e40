package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/demo"
	"arbiter/service/review"
)

// draftOn waits, handling the screen's messages, until the field holds
// as's draft in form on conflict with rationale, and returns it.
func draftOn(t *testing.T, s *driver, svc *review.Service, as, conflict string, form model.DraftForm, rationale string) model.Draft {
	t.Helper()
	var ds []model.Draft
	var kept *model.Draft
	testwait.Until(testwait.Deadline, func() bool {
		s.pump()
		var err error
		if ds, err = svc.Drafts(context.Background(), as, conflict); err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Form == form && d.Rationale == rationale {
				kept = &d
			}
		}
		return kept != nil
	})
	if kept == nil {
		t.Fatalf("the field never kept %s's %s draft on %s with %q; it holds %+v", as, form, conflict, rationale, ds)
	}
	return *kept
}

func noDrafts(t *testing.T, s *driver, svc *review.Service, as, conflict string) {
	t.Helper()
	var ds []model.Draft
	if !testwait.Until(testwait.Deadline, func() bool {
		s.pump()
		var err error
		if ds, err = svc.Drafts(context.Background(), as, conflict); err != nil {
			t.Fatal(err)
		}
		return len(ds) == 0
	}) {
		t.Fatalf("%s's drafts on %s are still kept: %+v", as, conflict, ds)
	}
}

// A decision typed and left is kept in the field as it is typed; a new
// screen offers it back when the conflict opens again (not forced into
// the form), decide takes it up, and writing the decision removes it.
func TestADraftDecisionIsKeptOfferedBackAndGoneOnceWritten(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			path := demoField(t)
			svc := openService(t, path, false)
			why := "Both are right about different payment classes; dismiss and open two narrower questions."
			s := start(t, svc, demo.Operator, size.w, size.h)
			open008(s)
			s.press(s.k.Decide)
			s.waitFor("Decide conflict-008")
			pickStrategy(s, 7, "dismiss")
			s.press(s.k.Next)
			s.typeText(why)
			d := draftOn(t, s, svc, demo.Operator, "conflict-008", model.DraftDecide, why)
			if d.Strategy != model.Dismiss {
				t.Errorf("the draft kept strategy %q, want dismiss", d.Strategy)
			}

			again := start(t, openService(t, path, false), demo.Operator, size.w, size.h)
			open008(again)
			again.waitFor("Your unwritten decision from", keyOf(again.k.Decide)+" takes it up,", keyOf(again.k.DropDraft)+" drops it.")
			again.waitFormatted()
			f := again.Frame()
			golden(t, fmt.Sprintf("draft-offered-%dx%d", size.w, size.h), f)
			if again.m.conflict.decide != nil {
				t.Fatal("the draft was put in a form before the person asked for it")
			}
			again.press(again.k.Decide)
			again.waitFor("Decide conflict-008", "▸ dismiss", "payment classes;", "is back in the form")
			if got := strings.TrimSpace(again.m.conflict.decide.rationale.Value()); got != why {
				t.Fatalf("the form took up %q, want %q", got, why)
			}
			again.press(again.k.Submit)
			again.waitFor("Write this decision?")
			again.press(again.k.Confirm)
			again.waitFor("Written.")
			noDrafts(t, again, svc, demo.Operator, "conflict-008")
		})
	}
}

// A ballot left unwritten is offered back, and drop_draft drops it from
// the field.
func TestADraftBallotIsDroppedOnRequest(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	why := "Thirty days of warm standby covers the first chargeback cycle."
	s := start(t, svc, "lead-priya", 80, 24)
	s.waitFor("conflict-014")
	openByFilter(s, "conflict-014")
	s.press(s.k.Vote)
	s.waitFor("Vote on conflict-014")
	s.press(s.k.ChooseA)
	s.press(s.k.Next)
	s.typeText(why)
	if d := draftOn(t, s, svc, "lead-priya", "conflict-014", model.DraftVote, why); d.Choice != detailOf(t, svc, "conflict-014").Conflict.UnitA {
		t.Errorf("the ballot's draft chose %q, want A", d.Choice)
	}
	again := start(t, openService(t, path, false), "lead-priya", 80, 24)
	again.waitFor("conflict-014")
	openByFilter(again, "conflict-014")
	again.waitFor("Your unwritten ballot from", keyOf(again.k.Vote)+" takes it up,")
	again.press(again.k.DropDraft)
	again.waitFor("is dropped")
	again.waitGone("Your unwritten ballot")
	noDrafts(t, again, svc, "lead-priya", "conflict-014")
}

// What was typed since the last save is kept when the screen ends
// before the typing paused (Run saves it after the program).
func TestTheScreensEndKeepsWhatWasTypedSinceTheLastSave(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	s := start(t, svc, demo.Operator, 140, 40)
	open008(s)
	s.press(s.k.Decide)
	s.waitFor("Decide conflict-008")
	s.press(s.k.Next)
	s.press(s.k.Next)
	s.typeText("W")
	draftOn(t, s, svc, demo.Operator, "conflict-008", model.DraftDecide, "W") // the first change is saved at once
	s.typeText("ritten at the last second.")
	s.m.keepDrafts(context.Background())
	draftOn(t, s, svc, demo.Operator, "conflict-008", model.DraftDecide, "Written at the last second.")
}

// Every hint names a key that works: a draft left on a conflict the
// person may no longer decide is offered to drop only, and the header's
// unread count names the inbox's key only where it opens the inbox.
func TestHintsNameOnlyKeysThatWork(t *testing.T) {
	path := demoField(t)
	svc := openService(t, path, false)
	if err := svc.DraftSave(context.Background(), model.Draft{AgentID: "lead-priya", ConflictID: "conflict-008",
		Form: model.DraftDecide, Rationale: "Written before it was routed to ops-maya."}); err != nil {
		t.Fatal(err)
	}
	s := start(t, svc, "lead-priya", 140, 40)
	s.waitFor("conflict-008", "unread · "+keyOf(s.k.Inbox))
	openByFilter(s, "conflict-008")
	f := s.waitFor("Your unwritten decision from")
	if !strings.Contains(f, "is kept: "+keyOf(s.k.DropDraft)+" drops it.") || strings.Contains(f, "takes it up") {
		t.Errorf("the offer of a draft lead-priya may not write names a key that does nothing:\n%s", f)
	}
	o := start(t, openService(t, path, false), demo.Operator, 140, 40)
	open008(o)
	o.press(o.k.Decide)
	f = o.waitFor("Decide conflict-008", " unread")
	if strings.Contains(f, "unread · "+keyOf(o.k.Inbox)) {
		t.Errorf("in the decision form the header names the inbox's key, which types a letter there:\n%s", f)
	}
}
