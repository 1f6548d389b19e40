package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/demo"

	tea "charm.land/bubbletea/v2"
)

// A decision the field would refuse (someone decided first) is taken out
// of the decision waiting, whichever comes back first: the field's answer
// to holding it, or its dry run. What is taken out is taken back from the
// field too, so that no sweep writes what the person was told is not
// written; what is left is written alone; and the screen ends when asked.
func TestADecisionTakenOutWhileTheFieldHoldsItIsTakenBackToo(t *testing.T) {
	for _, tc := range []struct {
		name       string
		conflicts  []string // decided on the screen, by keep A; the first is decided elsewhere first
		checkFirst bool
	}{
		{"one, refused before the field stored it", []string{"conflict-008"}, true},
		{"one, refused after the field stored it", []string{"conflict-008"}, false},
		{"two, one refused before the field stored them", []string{"conflict-008", "conflict-011"}, true},
		{"two, one refused after the field stored them", []string{"conflict-008", "conflict-011"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := demoField(t)
			svc := openService(t, path, false)
			s := start(t, svc, demo.Operator, 120, 40, func(o *Options) { o.UndoWindow = time.Hour })
			s.waitFor("▸ conflict-008")
			ctx := context.Background()
			if len(tc.conflicts) == 1 {
				s.press(s.k.KeepA)
				s.waitFor("Keep A conflict-008:")
			} else {
				s.keys("space", "space")
				s.waitFor("2 marked")
				s.press(s.k.KeepA)
				s.waitForWrapped("Keep A on 2 marked conflicts")
			}
			s.typeText("The first measurement stands.")
			// Someone decides conflict-008 first, as the rationale is typed.
			if _, err := openService(t, path, false).Merge(ctx, demo.Operator, model.MergeRequest{ConflictID: "conflict-008",
				Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "Decided elsewhere."}}); err != nil {
				t.Fatal(err)
			}
			s.send(keyMsg("enter"))
			// The field's two answers, handed to the screen in the order
			// the case names.
			var held, checked tea.Msg
			var others []tea.Msg
			deadline := time.Now().Add(testwait.Deadline)
			for held == nil || checked == nil {
				select {
				case msg := <-s.msgs:
					switch msg.(type) {
					case heldMsg:
						held = msg
					case pendingCheckedMsg:
						checked = msg
					default:
						others = append(others, msg)
					}
				case <-time.After(time.Until(deadline)):
					t.Fatalf("the screen never heard from the field: held %v, checked %v; it shows:\n%s", held, checked, s.Frame())
				}
			}
			first, second := held, checked
			if tc.checkFirst {
				first, second = checked, held
			}
			for _, msg := range append(others, first, second) {
				s.send(msg)
			}
			if len(tc.conflicts) == 1 {
				s.waitForWrapped("Not written, the field would refuse it now: conflict-008:")
			} else {
				s.waitForWrapped("Taken out of the decision waiting, the field would refuse it now: conflict-008:")
			}
			waiting := func() int {
				_, w, err := svc.HeldReport(ctx, demo.Operator)
				if err != nil {
					t.Fatal(err)
				}
				return len(w)
			}
			want := len(tc.conflicts) - 1
			testwait.For(t, fmt.Sprintf("the field to hold %d of the decision", want), func() bool {
				s.pump()
				return waiting() == want
			})
			s.keys("q") // quitting writes what waits
			testwait.For(t, "the screen to end", func() bool { s.pump(); return s.quit })
			if n := waiting(); n != 0 {
				t.Errorf("after the screen ended the field still holds %d of its decisions", n)
			}
			d, err := svc.Detail(ctx, "conflict-008")
			if err != nil {
				t.Fatal(err)
			}
			if r := d.Conflict.Resolution; r == nil || r.Rationale != "Decided elsewhere." {
				t.Errorf("conflict-008's decision is %+v, want the one made elsewhere", r)
			}
			if len(tc.conflicts) == 2 {
				d, err := svc.Detail(ctx, "conflict-011")
				if err != nil {
					t.Fatal(err)
				}
				if r := d.Conflict.Resolution; d.Conflict.Status != model.StatusResolved || r == nil || r.Rationale != "The first measurement stands." {
					t.Errorf("conflict-011, left in the decision, is %s with %+v; want it written", d.Conflict.Status, r)
				}
			}
		})
	}
}
