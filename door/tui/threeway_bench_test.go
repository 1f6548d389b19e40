package tui

// Benchmarks of the three-way view (docs/performance.md, "The three-way
// view"): two 20 KB revisions of a 20 KB ancestor. Run them with
//
//	go test ./door/tui -run '^$' -bench ThreeWay -benchtime 200x

import (
	"strings"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/service/fieldgen"
	rt "arbiter/service/review/reviewtest"

	tea "charm.land/bubbletea/v2"
)

// reviseWords changes one word in every `every` from the word at offset
// on (leaving out table rows, code and headings), the way a revision
// touches a long text here and there.
func reviseWords(s, tag string, offset, every int) string {
	fields := strings.SplitAfter(s, " ")
	for i := offset; i < len(fields); i += every {
		if strings.ContainsAny(fields[i], "\n|`#") {
			continue
		}
		fields[i] = tag + fields[i]
	}
	return strings.Join(fields, "")
}

// threeWay20KB records a conflict between two revisions of a 20 KB unit
// and opens it on a screen of benchSize, its units formatted.
func threeWay20KB(b *testing.B) *Model {
	b.Helper()
	base := fieldgen.Markdown(1, 20<<10)
	f, id := revisedConflict(b, base, reviseWords(base, "a", 3, 41), reviseWords(base, "b", 17, 37))
	m := New(f.Svc, Options{Field: f.Path, As: rt.Operator, Theme: "dark"})
	m.Update(benchSize)
	openTimed(b, m, id, nil)
	return m
}

func isThree(msg tea.Msg) bool { _, ok := msg.(threeMsg); return ok }

// showThreeWay presses the three-way key and hands the screen what the
// key's command makes, as the program does; it returns the frame.
func showThreeWay(b *testing.B, m *Model) string {
	b.Helper()
	_, cmd := m.Update(keyMsg(keyOf(m.keys.ThreeWay)))
	if cmd != nil {
		m.Update(newDriver(b, m).collect(cmd, isThree, 1)[0])
	}
	return m.View().Content
}

// leaveThreeWay leaves the view; forget also drops what the screen keeps
// of it.
func leaveThreeWay(m *Model, forget bool) {
	m.Update(keyMsg(keyOf(m.keys.ThreeWay)))
	if forget {
		m.three = threeCache{}
		v := &m.conflict.three
		v.cmp, v.laid, v.shown = nil, nil, nil
	}
}

func wantThreeWay(b *testing.B, frame string) {
	b.Helper()
	if !strings.Contains(frame, "Three-way:") || !strings.Contains(frame, "by A only") || strings.Contains(frame, "Comparing") {
		b.Fatalf("the frame does not show the three-way view:\n%s", frame)
	}
}

// BenchmarkThreeWay20KB is the three-way view of two 20 KB revisions of a
// 20 KB ancestor. first: from the key to the frame that shows it, never
// seen before (the ancestor read from the field, the three texts
// compared and laid out in a command, the frame drawn). relayout: the
// same at a new width, the comparison kept. cached: the key again, the
// view kept (Update and View).
func BenchmarkThreeWay20KB(b *testing.B) {
	b.Run("first", func(b *testing.B) {
		m := threeWay20KB(b)
		var frame string
		var times []time.Duration
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			t := time.Now()
			frame = showThreeWay(b, m)
			times = append(times, time.Since(t))
			b.StopTimer()
			leaveThreeWay(m, true)
			b.StartTimer()
		}
		benchmetrics.Percentiles(b, times)
		wantThreeWay(b, frame)
	})
	b.Run("relayout", func(b *testing.B) {
		m := threeWay20KB(b)
		showThreeWay(b, m)
		var frame string
		var times []time.Duration
		widths := []int{benchSize.Width, benchSize.Width - 3}
		for _, w := range widths { // the units' markdown asked for at both widths
			clear(m.three.laid)
			_, cmd := m.Update(tea.WindowSizeMsg{Width: w, Height: benchSize.Height})
			m.Update(newDriver(b, m).collect(cmd, isThree, 1)[0])
		}
		defer benchmetrics.CPUPerOp(b)()
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			clear(m.three.laid) // the comparison stays
			b.StartTimer()
			t := time.Now()
			_, cmd := m.Update(tea.WindowSizeMsg{Width: widths[i%2], Height: benchSize.Height})
			for _, msg := range newDriver(b, m).collect(cmd, isThree, 1) {
				m.Update(msg)
			}
			frame = m.View().Content
			times = append(times, time.Since(t))
		}
		benchmetrics.Percentiles(b, times)
		wantThreeWay(b, frame)
	})
	b.Run("cached", func(b *testing.B) {
		m := threeWay20KB(b)
		showThreeWay(b, m)
		leaveThreeWay(m, false)
		var frame string
		var times []time.Duration
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			t := time.Now()
			frame = showThreeWay(b, m)
			times = append(times, time.Since(t))
			b.StopTimer()
			leaveThreeWay(m, false)
			b.StartTimer()
		}
		benchmetrics.Percentiles(b, times)
		wantThreeWay(b, frame)
	})
}
