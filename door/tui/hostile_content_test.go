package tui

// Units an agent can write to make the screen slow or unreadable: huge,
// deeply nested, one endless line, not UTF-8, full of NULs or escape
// sequences. The tests open each one on the screen and press keys; the
// benchmarks measure what each costs to format, lay out and draw
// (docs/reliability.md has the figures):
//
//	go test ./door/tui -run '^$' -bench HostileUnit -benchtime 3x

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
)

// hostileUnit is one hostile content, what the top of its formatted
// pane shows, and what the bottom shows (the note on what was cut).
type hostileUnit struct {
	name, content, top, bottom string
}

// attacks is every terminal attack in one text: CSI colour, cursor and
// erase sequences, OSC 52 clipboard writes, OSC 8 hyperlinks, window
// titles, DCS, APC, PM and SOS strings, 8-bit C1 controls, BEL, backspace
// and carriage-return overwrites, NUL, DEL, bidi overrides and isolates,
// zero-width and tag characters, line separators and invalid UTF-8.
const attacks = "red \x1b[31mALERT\x1b[0m clear\x1b[2J\x1b[H up\x1b[1A\x1b[2K alt\x1b[?1049h " +
	"clip\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 " +
	"link\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\ title\x1b]0;pwned\x07 " +
	"dcs\x1bP+q544e\x1b\\ apc\x1b_Gf=100;AAAA\x1b\\ pm\x1b^pm\x1b\\ sos\x1bXsos\x1b\\ reset\x1bc " +
	"c1\u009b31m\u009d52;c;eA==\u009c\u0090q\u009c\u0085 raw\x9b31m " +
	"bell\x07 safe\x08\x08\x08\x08evil rm -rf /\rls nul\x00 del\x7f " +
	"invoice\u202egpj.exe \u2066admin\u2069 \u200f\u061c pay\u200bpal\ufeff\u2060 tag\U000E0041 " +
	"sep\u2028line\u2029para bad\xff\xc3utf8 tab\tend"

const cutNote = "first 64 KB of"

func hostileUnits() []hostileUnit {
	para := "An **ordinary** paragraph of a long report, with `code` and a [link](https://example.com), " +
		"long enough to wrap once or twice in a pane.\n\n"
	var table strings.Builder
	table.WriteString("| row | region | p99 ms | note |\n|---:|---|---:|---|\n")
	for i := range 10_000 {
		fmt.Fprintf(&table, "| %d | eu-west-%d | %d | steady |\n", i, i%7, 40+i%90)
	}
	var lists strings.Builder
	for i := range 1000 {
		lists.WriteString(strings.Repeat("  ", i) + "- level " + fmt.Sprint(i) + "\n")
	}
	var mixed strings.Builder
	for i := range 500 {
		mixed.WriteString(strings.Repeat("> - ", i) + "deeper\n")
	}
	var headings strings.Builder
	for i := range 8_000 {
		fmt.Fprintf(&headings, "# Heading %d\n", i)
	}
	junk := make([]byte, 256<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(r.IntN(256))
	}
	return []hostileUnit{
		{"10MB-markdown", strings.Repeat(para, 10<<20/len(para)+1), "ordinary", cutNote},
		{"10k-row-table", table.String(), "eu-west-", cutNote},
		{"1000-nested-lists", lists.String(), "too deep to format", cutNote},
		{"1000-nested-quotes", strings.Repeat(">", 1000) + " deep\n", "too deep to format", "deep"},
		{"500-nested-quotes-and-lists", mixed.String(), "too deep to format", cutNote},
		{"8k-headings", headings.String(), "Heading 0", cutNote},
		{"20k-identical-headings", strings.Repeat("# x\n", 20_000), "x", cutNote},
		{"1MB-line", strings.Repeat("x", 1<<20), "xxxxxxxxxx", cutNote},
		{"10MB-line-of-words", strings.Repeat("word ", 2<<20), "word word", cutNote},
		{"invalid-UTF-8", string(junk), "\uFFFD", cutNote},
		{"NUL-bytes", strings.Repeat("a\x00b\x00\x00", 200<<10), "a␀b␀␀", cutNote},
		{"1MB-of-escapes", strings.Repeat(attacks+"\n", 1<<20/len(attacks)), "␛[31mALERT", cutNote},
	}
}

// hostileConflict records a conflict whose unit A is content (unit B a
// short answer) and escalates it, so that it heads the review queue.
func hostileConflict(t testing.TB, content string) (*rt.Field, rt.Pair) {
	t.Helper()
	f := rt.New(t, rt.Policy())
	p := f.Contradict(t, model.ConflictFactual, rt.Side{Content: content, Score: 0.7},
		rt.Side{Content: "The **short** answer: p99 is 90 ms.", Score: 0.6})
	if _, err := f.Svc.Merge(context.Background(), rt.Senior1, model.MergeRequest{ConflictID: p.Conflict,
		Strategy: model.HumanEscalation, Resolution: model.MergeResolution{Rationale: "needs a person"}}); err != nil {
		t.Fatal(err)
	}
	return f, p
}

// openHostile opens the screen on f as the operator, at w × h, and opens
// the conflict at the head of the queue.
func openHostile(t testing.TB, svc *review.Service, id string, w, h int) *driver {
	t.Helper()
	d := start(t, svc, rt.Operator, w, h, func(o *Options) { o.Now, o.UndoWindow = time.Now, 0 })
	d.until(testwait.Deadline, "the queue", func(f string) bool { return strings.Contains(f, "▸ "+id) })
	d.send(keyMsg("enter"))
	return d
}

// renderedAll says whether both panes have left "Rendering…".
func renderedAll(frame string) bool {
	frame = sgr.ReplaceAllString(frame, "")
	return strings.Contains(frame, "A mem-") && !strings.Contains(frame, "Rendering…")
}

func BenchmarkHostileUnit(b *testing.B) {
	md := newMarkdown()
	for _, u := range hostileUnits() {
		b.Run(u.name, func(b *testing.B) {
			f, pair := hostileConflict(b, u.content)
			p := openHostile(b, f.Svc, pair.Conflict, 160, 48)
			p.until(time.Minute, "both units", renderedAll)
			width := p.m.conflict.innerW
			b.Run("format", func(b *testing.B) {
				for b.Loop() {
					md.Render(u.content, width, "dark")
				}
			})
			for _, mode := range []string{"r", "w", "h"} {
				name := map[string]string{"r": "raw", "w": "diff", "h": "history"}[mode]
				b.Run(name+"-open-and-draw", func(b *testing.B) {
					for b.Loop() {
						p.send(keyMsg(mode)) // lay the text out
						p.m.View()
						p.send(keyMsg(mode)) // and back to the formatted units
						p.m.View()
					}
				})
			}
			b.Run("scroll-and-draw", func(b *testing.B) {
				for b.Loop() {
					p.send(keyMsg("pgdown"))
					p.m.View()
				}
			})
		})
	}
}

// TestHugeAndMalformedUnitsKeepTheScreenResponsive opens each hostile
// unit on the screen: both panes must leave "Rendering…" within a bound,
// the top of the formatted unit and, at its bottom, the note on what was
// cut must show, and the raw, diff and history views, scrolling and
// going back to the queue must each be handled. Every frame must be
// clean. The bounds are loose, for slow machines: before these defences
// some of these units took minutes, or forever, and the benchmarks give
// the real figures.
func TestHugeAndMalformedUnitsKeepTheScreenResponsive(t *testing.T) {
	const bound = 20 * time.Second
	for _, u := range hostileUnits() {
		t.Run(u.name, func(t *testing.T) {
			f, pair := hostileConflict(t, u.content)
			start := time.Now()
			p := openHostile(t, f.Svc, pair.Conflict, 160, 48)
			p.until(bound, "both units formatted", renderedAll)
			opened := time.Since(start)
			has := func(s string) func(string) bool {
				return func(frame string) bool { return strings.Contains(sgr.ReplaceAllString(frame, ""), s) }
			}
			p.until(bound, "the top of the unit", has(u.top))
			p.send(keyMsg("G"))
			p.until(bound, "the note at the bottom", has(u.bottom))
			p.send(keyMsg("r"))
			p.send(keyMsg("G"))
			if len(u.content) > maxRawBytes {
				p.until(bound, "the raw view's note", has("arbiter show"))
			}
			p.send(keyMsg("g"))
			p.send(keyMsg("pgdown"))
			p.send(keyMsg("w"))
			p.until(bound, "the word diff", has("A mem-"))
			p.send(keyMsg("h"))
			p.until(bound, "the history", has("recorded a contradiction"))
			p.send(keyMsg("h"))
			p.send(keyMsg("esc"))
			p.until(bound, "the queue", has("▸ "+pair.Conflict))
			if p.problem != "" {
				t.Fatalf("a frame carried %s", p.problem)
			}
			t.Logf("%s: formatted in %s, every view in %s", u.name, opened.Round(time.Millisecond),
				time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestHugeOneLineTextsKeepTheScreenResponsive: a description, an
// escalation reason and a vote's rationales have no size limit, and the
// conflict's header, drawn at every frame, shows each on one line. With
// 10 MB of each, the queue, the conflict and its vote must each be
// handled and drawn within a second, far above the few milliseconds they
// take (a frame took seconds when the whole text was sanitized and
// measured at each frame to show its first hundred cells).
func TestHugeOneLineTextsKeepTheScreenResponsive(t *testing.T) {
	const bound = 20 * time.Second
	ctx := context.Background()
	huge := strings.Repeat("the numbers disagree \x1b[2J ", 10<<20/26)
	f := rt.New(t, rt.Policy())
	rec := func(by, contradicts string) model.RecordResult {
		req := model.RecordRequest{Type: model.TypeFinding, Content: "p99 is 40 ms", Intent: model.Intent{Purpose: "measure"},
			Confidence: model.Confidence{Score: model.Ptr(0.5), Reasoning: "measured"}}
		if contradicts != "" {
			req.Relations = []model.Relation{{Type: model.RelContradicts, TargetID: contradicts, Description: huge}}
		}
		res, err := f.Svc.Record(ctx, by, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, s := range []model.Strategy{model.HumanEscalation, model.Vote} {
		c := rec(rt.Standard, rec(rt.Senior2, "").UnitID).Conflicts[0].ID
		if _, err := f.Svc.Merge(ctx, rt.Senior1, model.MergeRequest{ConflictID: c, Strategy: s,
			Resolution: model.MergeResolution{Rationale: huge}}); err != nil {
			t.Fatal(err)
		}
		if s == model.Vote {
			if _, err := f.Svc.Vote(ctx, rt.Lead1, model.VoteRequest{ConflictID: c, Choice: "A", Rationale: huge}); err != nil {
				t.Fatal(err)
			}
		}
	}
	has := func(s string) func(string) bool {
		return func(frame string) bool { return strings.Contains(sgr.ReplaceAllString(frame, ""), s) }
	}
	p := openHostile(t, f.Svc, "conflict-001", 160, 48)
	p.until(bound, "the escalated conflict", has("escalated by senior-1: the numbers disagree ␛[2J"))
	p.send(keyMsg("esc"))
	p.until(bound, "the queue", has("▸ conflict-001"))
	p.send(keyMsg("j"))
	p.send(keyMsg("enter"))
	p.until(bound, "the vote", has("lead-1 → A: the numbers disagree"))
	p.send(keyMsg("v"))
	p.until(bound, "the vote form", has("Vote on conflict-002"))
	if p.problem != "" {
		t.Fatalf("a frame carried %s", p.problem)
	}
	if p.slowest > time.Second {
		t.Errorf("handling a message and drawing the frame took up to %s", p.slowest)
	}
	t.Logf("slowest message and frame: %s", p.slowest)
}
