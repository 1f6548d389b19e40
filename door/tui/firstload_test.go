package tui

import (
	"context"
	"testing"
	"time"

	"arbiter/internal/testwait"

	tea "charm.land/bubbletea/v2"
)

// The screen opens on the first conflict that is the person's turn even
// when its first sweep changes the field before the field has said who
// the person is: the sweep's reload must not place the cursor without the
// person's turn (it kept it on the oldest escalated conflict, four rows
// from lead-priya's ballot, on a loaded machine).
func TestTheFirstRowIsThePersonsTurnWhenTheSweepAnswersFirst(t *testing.T) {
	svc := openService(t, demoField(t), false)
	ctx, end := context.WithCancel(context.Background())
	t.Cleanup(end) // the next sweep's wait ends with the session
	m := New(svc, Options{Field: "field.db", As: "lead-priya", Theme: "dark", Now: func() time.Time { return screenNow },
		SweepEvery: time.Hour, Context: ctx})
	d := newDriver(t, m)
	d.send(windowSize(140, 40))
	var identity tea.Msg
	for _, msg := range d.run(m.Init()) {
		switch msg.(type) {
		case identityMsg:
			identity = msg
		case sweepDueMsg:
			// The sweep, and whatever its answer asks for, before the
			// field has said who the person is.
			for _, swept := range d.run(d.m.sweep()) {
				rep, ok := swept.(sweptMsg)
				if !ok || rep.err != nil || len(rep.rep.Actions) == 0 {
					t.Fatalf("the first sweep of the demo field did nothing to change it (%#v): the test cannot tell", swept)
				}
				asked := d.m.queueSeq
				d.send(swept)
				// A queue the sweep's answer asked for comes back before
				// the person is known.
				deadline := time.Now().Add(testwait.Deadline)
				for d.m.queueSeq != asked && d.queueLoads == 0 {
					if !d.await(deadline) {
						t.Fatal("the queue the sweep asked for never came back")
					}
				}
			}
		}
	}
	if identity == nil {
		t.Fatal("the screen never asked who lead-priya is")
	}
	d.send(identity)
	deadline := time.Now().Add(testwait.Deadline)
	for !d.m.queue.loaded || !d.m.queue.personal {
		if !d.await(deadline) {
			t.Fatalf("the queue was never read in lead-priya's order:\n%s", d.frame)
		}
	}
	if got, _ := d.m.queue.selected(); got.ID != "conflict-010" {
		t.Errorf("the screen opened on %s, want conflict-010, the first of lead-priya's turn:\n%s", got.ID, d.frame)
	}
}
