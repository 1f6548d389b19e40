package tui

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"arbiter/internal/shot"
	"arbiter/model"
	"arbiter/service/demo"
)

//go:generate go test -run ^TestScreenshots$ -shots .

var shots = flag.Bool("shots", false, "write the README's screenshots to ../../screenshots")

// TestScreenshots drives the real screen over the demo field and writes
// the final frames of its main screens as SVG and PNG images.
func TestScreenshots(t *testing.T) {
	if !*shots {
		t.Skip("run with -shots (or go generate ./door/tui) to rewrite ../../screenshots")
	}
	const w, h = 150, 42
	write := func(name, title string, s *driver) {
		t.Helper()
		opts := shot.Dark()
		opts.Title = title
		if err := shot.WriteFiles(filepath.Join("..", "..", "screenshots"), name, s.Styled(), w, h, opts); err != nil {
			t.Fatal(err)
		}
	}
	svc := openService(t, demoField(t), false)

	s := start(t, svc, demo.Operator, w, h)
	s.waitFor("▸ conflict-008", "authority 10", "A: mem-023 by ana-quill", "B: mem-026 by sre-atlas")
	write("preview", "arbiter — the queue, the conflict under the cursor beside it", s)
	s.press(s.k.PreviewPane)
	s.waitFor("AGENTS")
	write("queue", "arbiter — the queue", s)
	s.press(s.k.Help)
	s.waitFor("The queue — where you are")
	write("help", "arbiter — help: the keys of the screen you are on first", s)
	s.keys("esc")
	s.waitFor("AGENTS")

	s.keys("enter")
	s.waitFor("Shadow reconciliation", "The 0.004 % leaves out")
	write("conflict", "arbiter — a conflict, side by side", s)

	s.keys("d")
	s.waitFor("Decide conflict-008")
	for range 4 {
		s.keys("down")
	}
	s.keys("tab")
	s.typeText("Both are right, about different payment classes: the gate holds for same-currency payments only.")
	s.keys("tab")
	s.typeText("## Phase 0 gate\n\nMet for same-currency payments (0.004 %); FX and partial captures stay open until the rounding matches.")
	s.waitFor("Phase 0 gate", "matches.") // all of it typed
	write("decide", "arbiter — writing a decision", s)

	q := start(t, svc, demo.Operator, w, h)
	q.waitFor("▸ conflict-008", "authority 10")
	q.keys("j")
	q.waitFor("▸ conflict-011")
	q.keys("B")
	q.waitFor("Keep B conflict-011:")
	q.typeText("Idempotency first: a double capture costs more than a late dashboard.")
	q.waitFor("late dashboard.")
	write("quick", "arbiter — a quick decision: one key and a rationale", q)
	q.keys("esc", "space", "space", "space")
	q.waitFor("3 marked")
	q.keys("X")
	q.waitFor("Dismiss 3 marked conflicts")
	q.typeText("Checked with both authors: no real contradiction.")
	q.waitFor("no real contradiction.")
	write("batch", "arbiter — one decision on marked rows", q)
	tw := start(t, svc, demo.Operator, w, h)
	openByFilter(tw, "conflict-012")
	tw.press(tw.k.ThreeWay)
	tw.waitFor("base mem-038", "!! Black Friday", "2 disputed")
	write("three-way", "arbiter — three-way: what each side changed in the unit both revise", tw)

	v := start(t, svc, "lead-priya", w, h)
	openByFilter(v, "conflict-014")
	v.keys("v")
	v.waitFor("Vote on conflict-014", "▍For")
	v.keys("a", "tab")
	v.typeText("Thirty days of warm standby is cheap insurance through the first chargeback cycle.")
	v.keys("ctrl+s")
	v.waitFor("Cast this vote?")
	write("vote", "arbiter — a vote", v)

	l := start(t, svc, "lead-priya", w, h)
	l.waitFor("▸ conflict-", "lead-priya")
	l.keys("j")
	l.waitFor("▸ conflict-014")
	l.keys("A")
	l.waitFor("Ballot for A")
	l.typeText("Thirty days: month-end close lands on day 6.")
	l.waitFor("day 6.")
	write("ballot", "arbiter — a ballot from the queue: keep A, and why", l)

	y := start(t, svc, demo.Operator, w, h)
	openByFilter(y, "conflict-012")
	y.waitFor("A mem-039")
	y.press(y.k.Synthesize)
	y.waitFor("Decide conflict-012", "1 alternative to settle")
	write("synthesize", "arbiter — synthesize: the suggestion loaded, alt+a / alt+b settle what is disputed", y)

	st := start(t, svc, demo.Operator, w, h)
	st.waitFor("▸ conflict-008", "authority 10")
	st.press(st.k.Stats)
	st.waitFor("Open conflicts:", "Time to decision")
	write("stats", "arbiter — the field's figures", st)

	// Last: the decision it shows a toast of changes the field.
	ib := start(t, svc, "lead-kenji", w, h)
	ib.waitFor("▸ conflict-", "unread")
	ib.press(ib.k.Inbox)
	ib.waitFor("newest first", "● ")
	ib.waitGone(" unread · ")
	if _, err := svc.Merge(context.Background(), demo.Operator, model.MergeRequest{ConflictID: "conflict-012", Strategy: model.Authority,
		Resolution: model.MergeResolution{WinnerID: model.Ptr("mem-039"),
			Rationale: "The acquirer's own count settles it: 4,200 a second at the peak, so the target is 8,400."}}); err != nil {
		t.Fatal(err)
	}
	waitForWords(ib, "escalated to you, was decided by ops-maya")
	ib.waitFor("conflict-012 · resolved") // the inbox read again, the new notice on top
	ib.waitGone(" unread · ")
	write("inbox", "arbiter — the inbox, and a toast: an escalation you own was decided", ib)
}
