package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	arbiterfield "arbiter/store/field"

	"charm.land/glamour/v2"
)

// sgr matches the colour and style sequences the screen itself draws
// with; a frame may hold those and no other escape sequence.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// frameProblem describes the first thing in a frame, once its own SGR
// sequences are removed, that could drive a terminal or hide what it
// says: ESC and every other C0 control but '\n' (BEL, backspace, CR,
// tab…), DEL, C1 controls, bidi controls, invisible format characters,
// line separators, invalid UTF-8. It returns "" for a clean frame.
func frameProblem(frame string) string {
	text := sgr.ReplaceAllString(frame, "")
	if !utf8.ValidString(text) {
		return "invalid UTF-8"
	}
	for i, r := range text {
		var bad string
		switch {
		case r == '\n':
		case r < 0x20, r == 0x7f:
			bad = "C0 control or DEL"
		case r >= 0x80 && r <= 0x9f:
			bad = "C1 control"
		case unicode.Is(unicode.Bidi_Control, r):
			bad = "bidi control"
		case r == 0x2028 || r == 0x2029:
			bad = "line separator"
		case r == 0x200b || r == 0xfeff || r == 0x2060 || (r >= 0xe0000 && r <= 0xe007f):
			bad = "invisible character"
		}
		if bad != "" {
			return fmt.Sprintf("%s %U at byte %d: %q", bad, r, i, text[max(0, i-60):min(len(text), i+60)])
		}
	}
	return ""
}

// startGuarded is start on a field whose name and clock are the
// attacker's too; the driver checks every frame (clean).
func startGuarded(t *testing.T, svc *review.Service, as string, w, h int) *driver {
	t.Helper()
	return start(t, svc, as, w, h, func(o *Options) {
		o.Field, o.Now, o.UndoWindow = "field\x1b]0;pwned\x07.db", func() time.Time { return time.Now().Add(time.Hour) }, 0
	})
}

// Agents a field may hold although REGISTER refuses such names now: the
// field was written before, or by another program.
var (
	mallory = "mallory\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202e"
	eve     = "eve\rOPERATOR\x08\x08\u009b31m\u2066"
)

// hostileField is a field of the reviewtest cast plus mallory and eve,
// whose every text carries attacks (see attacks):
//
//	conflict-001  escalated by mallory (senior-2's unit against hers)
//	conflict-002  put to a vote; mallory and eve have voted
//	conflict-003  resolved by mallory with a synthesis
//	conflict-004  detected (eve against mallory)
//	conflict-005  detected (eve against mallory)
func hostileField(t *testing.T) *rt.Field {
	t.Helper()
	ctx := context.Background()
	f := rt.New(t, rt.Policy())
	err := f.Store.Write(ctx, func(tx store.Tx) error {
		for _, a := range []model.Agent{
			{ID: mallory, Role: "senior\x1b]8;;https://evil.example/\x07x\x1b]8;;\x07", Authority: 6},
			{ID: eve, Role: "analyst\u202e\x1b[8m", Authority: 6},
		} {
			epoch, err := tx.EpochTick()
			if err != nil {
				return err
			}
			a.Kind, a.Status, a.RegisteredAt = model.KindAgent, model.AgentIdle, time.Now()
			if err := tx.AgentInsert(a, epoch); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pair := func(byA, byB string) string {
		rec := func(by, contradicts string) model.RecordResult {
			req := model.RecordRequest{Type: model.TypeFinding,
				Content: "# Finding " + attacks + "\n\n" + attacks + "\n\n- see [the docs](https://evil.example/?" + attacks +
					") and <https://auto.example>\n\n> " + attacks + "\n\n```\n" + attacks + "\n```\n",
				Intent: model.Intent{Purpose: "purpose " + attacks, TaskID: model.Ptr("task " + attacks)},
				Confidence: model.Confidence{Score: model.Ptr(0.6), Reasoning: "reasoning " + attacks,
					Evidence: []string{"evidence " + attacks}, Assumptions: []string{"assumption " + attacks}},
				SessionID:    model.Ptr("session " + attacks),
				ConflictType: model.ConflictFactual,
			}
			if contradicts != "" {
				req.Relations = []model.Relation{{Type: model.RelContradicts, TargetID: contradicts,
					Description: "description " + attacks}}
			}
			res, err := f.Svc.Record(ctx, by, req)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a := rec(byA, "")
		return rec(byB, a.UnitID).Conflicts[0].ID
	}
	merge := func(by, id string, s model.Strategy, synthesis string) {
		req := model.MergeRequest{ConflictID: id, Strategy: s, Resolution: model.MergeResolution{Rationale: "rationale " + attacks}}
		if synthesis != "" {
			req.Resolution.Synthesis = &synthesis
		}
		if _, err := f.Svc.Merge(ctx, by, req); err != nil {
			t.Fatal(err)
		}
	}
	merge(mallory, pair(rt.Senior2, mallory), model.HumanEscalation, "")
	c2 := pair(eve, mallory)
	merge(rt.Senior1, c2, model.Vote, "")
	for by, choice := range map[string]string{mallory: "A", eve: "B"} {
		if _, err := f.Svc.Vote(ctx, by, model.VoteRequest{ConflictID: c2, Choice: choice, Rationale: "ballot " + attacks}); err != nil {
			t.Fatal(err)
		}
	}
	merge(mallory, pair(eve, mallory), model.Synthesis, "synthesis "+attacks)
	pair(eve, mallory)
	pair(eve, mallory)
	return f
}

// TestHostileFieldTextReachesNoTerminalOnAnyScreen drives the screen over
// a field whose agents, units, conflicts, decisions and ballots carry
// every attack: the queue in both scopes, a conflict with its rendered,
// diff, raw and history views, the decision form through confirmation to
// its result, the vote form likewise, a conflict another writer resolves
// while it is on screen, and the screen of a caller whose own id is
// hostile. Every frame drawn must hold no escape sequence but the
// screen's own SGR, and the attacks must show, inert.
func TestHostileFieldTextReachesNoTerminalOnAnyScreen(t *testing.T) {
	f := hostileField(t)
	s := startGuarded(t, f.Svc, rt.Operator, 160, 45)
	step := func(name string, texts ...string) string {
		t.Helper()
		frame := s.waitFor(texts...)
		s.clean(name)
		return frame
	}

	step("the queue", "▸ conflict-001", "conflict-002", "description red ␛[31mALERT")
	s.keys("a")
	step("every status", "showing all statuses", "conflict-003", "conflict-005")
	s.keys("a")
	step("the queue again", "▸ conflict-001")

	s.keys("enter")
	step("conflict-001", "A mem-", "B mem-", "escalated by mallory␛[2J")
	s.waitGone("Rendering…")
	frame := step("conflict-001 rendered", "Finding red ␛[31mALERT")
	for _, want := range []string{"mallory␛[2J", "the docs", "purpose red ␛[31mALERT", "reasoning red ␛[31mALERT"} {
		if !strings.Contains(s.Frame(), want) {
			t.Errorf("the conflict does not show %q:\n%s", want, frame)
		}
	}
	if strings.Contains(s.Styled(), "\x1b]8;") {
		t.Error("a link reached the screen as a terminal hyperlink")
	}
	s.keys("w")
	step("the word diff", "A mem-")
	s.keys("r")
	step("the raw text", "# Finding red ␛[31mALERT", "[the docs](https://evil.example/?red ␛[31mALERT")
	s.keys("h")
	step("the history", "History", "Notifications", "recorded a contradiction", "escalated it to a person")
	s.keys("h", "tab", "pgdown", "G", "g")
	step("back to the units", "Finding red ␛[31mALERT")

	s.keys("d")
	step("the decision form", "Decide conflict-001", "mallory␛[2J")
	s.keys("tab", "tab")
	s.typeText("the earlier measurement stands")
	s.keys("ctrl+s")
	step("the confirmation", "Write this decision?", "notified:", "mallory␛[2J")
	s.keys("y")
	step("the result", "Written.", "notified:")
	s.keys("esc")
	step("the queue after deciding", "conflict-002")

	openByFilter(s, "conflict-002")
	step("the vote", "Vote:", "ballot red ␛[31mALERT")
	s.keys("v")
	step("the vote form", "Vote on conflict-002")
	s.keys("a", "tab")
	s.typeText("A measured it in production")
	s.keys("ctrl+s")
	step("the vote confirmation", "Cast this vote?")
	s.keys("y")
	step("the vote result, on the queue", "is counted:", "The vote is closed", "/ conflict-002")
	s.keys("esc", "a") // clear the filter; every status
	step("every status", "showing all statuses", "conflict-005")
	openByFilter(s, "conflict-004")
	step("conflict-004", "A mem-", "B mem-")
	// Another program, as mallory, settles it while it is on screen.
	other, err := arbiterfield.Open(context.Background(), f.Path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := review.New(other).Merge(context.Background(), mallory, model.MergeRequest{ConflictID: "conflict-004",
		Strategy: model.Dismiss, Resolution: model.MergeResolution{Rationale: "dismissed " + attacks}}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	step("a change by another writer", "changed while on screen", "resolved by mallory␛[2J")
	s.keys("esc")

	// The screen of a caller whose own id is hostile: its header, and the
	// decision form's refusals, which name the caller.
	s2 := startGuarded(t, f.Svc, mallory, 160, 45)
	s2.waitFor("as mallory␛[2J", "Nothing waits for you.")
	s2.keys("a")
	s2.waitFor("showing all statuses")
	openByFilter(s2, "conflict-005")
	s2.waitFor("A mem-")
	s2.keys("d")
	s2.waitFor("Decide conflict-005", "only role")
	s2.clean("mallory's decision form")
	s.clean("the end")
	t.Logf("%d and %d frames checked", s.frames, s2.frames)
}

// TestMarkdownLinksDoNotBecomeTerminalHyperlinks: glamour writes links
// as OSC 8 hyperlinks, which an agent could aim anywhere; the rendering
// keeps only colour and style.
func TestMarkdownLinksDoNotBecomeTerminalHyperlinks(t *testing.T) {
	text := "see [the docs](https://evil.example/x) and <https://auto.example> and ![img](https://img.example/a.png)\n"
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(60))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := r.Render(text)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, "\x1b]8;") {
		t.Log("glamour no longer writes OSC 8 hyperlinks; the test still pins that none get through")
	}
	out := newMarkdown().Render(text, 60, "dark")
	if p := frameProblem(out); p != "" {
		t.Fatalf("rendered link: %s", p)
	}
	if !strings.Contains(sgr.ReplaceAllString(out, ""), "https://evil.example/x") {
		t.Errorf("the link's address should stay readable:\n%s", out)
	}
}

// FuzzRenderLeavesOnlyStyle: whatever markdown an agent writes, what the
// screen gets from formatting it holds no escape sequence but SGR and no
// control, bidi or invisible character (frameProblem): the sanitizer
// runs before glamour, and onlySGR after it.
func FuzzRenderLeavesOnlyStyle(f *testing.F) {
	for _, s := range []string{attacks, "[x](https://evil.example/\x1b]52;c;eA==\x07)", "<https://a.example>",
		"# h\n\n> q\n\n- l\n\n```go\nx\x1b[2J\n```\n\n| a | b |\n|---|---|\n| \x07 | \u202e |\n",
		strings.Repeat(">", 20) + " deep", "![i](https://i.example/a.png \"t\x1b[8m\")"} {
		f.Add(s)
	}
	md := newMarkdown()
	f.Fuzz(func(t *testing.T, s string) {
		if p := frameProblem(md.Render(s, 40, "dark")); p != "" {
			t.Fatalf("Render(%q): %s", s, p)
		}
	})
}
