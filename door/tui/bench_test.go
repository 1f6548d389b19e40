package tui

// Benchmarks of the screen on large fields (docs/performance.md, "A
// million-unit field"). They build their own fields with fieldgen; set
// ARBITER_BENCH_FIELD to a field built by `arbiter gen` (scripts/perf.sh
// does) to measure the first frame on it instead. Run them with
//
//	go test ./door/tui -run '^$' -bench . -benchtime 200x

import (
	"arbiter/internal/benchmetrics"
	arbiterfield "arbiter/store/field"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// benchSize is the terminal the benchmarks draw in: wide enough for the
// two units side by side.
var benchSize = tea.WindowSizeMsg{Width: 160, Height: 48}

// queueField builds a field whose review queue has open rows: 10k by
// default, the queue of the million-unit field.
func queueField(b testing.TB, open int) string {
	b.Helper()
	if p := os.Getenv("ARBITER_BENCH_FIELD"); p != "" {
		return p
	}
	path := filepath.Join(b.TempDir(), "field.db")
	conflicts := open + open/10
	start := time.Now()
	if _, err := fieldgen.Build(context.Background(), path, fieldgen.Options{
		Units: 2*conflicts + conflicts/2 + 1000, Conflicts: conflicts, Open: open, Seed: 1,
	}); err != nil {
		b.Fatal(err)
	}
	b.Logf("built a field with %d conflicts waiting in %s", open, time.Since(start).Round(time.Millisecond))
	return path
}

// startLoaded runs m's start as the program does: Init reads who the
// caller is, and that answer asks for the queue's first page.
func startLoaded(b testing.TB, m *Model) {
	b.Helper()
	d := newDriver(b, m)
	_, cmd := m.Update(d.collect(m.Init(), func(msg tea.Msg) bool { _, ok := msg.(identityMsg); return ok }, 1)[0])
	m.Update(d.collect(cmd, func(msg tea.Msg) bool { _, ok := msg.(queueLoadedMsg); return ok }, 1)[0])
}

// BenchmarkQueueFirstFrame is the start of the screen: open the field,
// build the screen, run Init's loads (the first queue page and who the
// caller is), and draw the first frame with the queue in it.
func BenchmarkQueueFirstFrame(b *testing.B) {
	path := queueField(b, 10_000)
	ctx := context.Background()
	var frame string
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		st, err := arbiterfield.Open(ctx, path, store.Options{}) // as arbiter opens it
		if err != nil {
			b.Fatal(err)
		}
		m := New(review.New(st), Options{Field: path, As: fieldgen.Operator, Theme: "dark"})
		m.Update(benchSize)
		startLoaded(b, m)
		frame = m.View().Content
		st.Close()
	}
	if !strings.Contains(frame, "conflict-") {
		b.Fatalf("the first frame shows no conflict:\n%s", frame)
	}
}

// navModel is the screen with a queue of n rows loaded.
func navModel(b *testing.B, n int) *Model {
	b.Helper()
	path := queueField(b, n)
	st, err := arbiterfield.Open(context.Background(), path, store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := review.New(st)
	m := New(svc, Options{Field: path, As: fieldgen.Operator, Theme: "dark"})
	m.Update(benchSize)
	startLoaded(b, m)
	// The rest of the queue, as paging through it would load it.
	load := m.loadQueue(n)
	m.Update(load())
	if len(m.queue.rows) != n {
		b.Fatalf("the queue has %d rows, want %d", len(m.queue.rows), n)
	}
	return m
}

// BenchmarkQueueNavigate is one key in a queue of 10,000 conflicts:
// Update moves the cursor (down to the end, then back to the top) and View
// draws the frame, the queue alone (the preview hidden: see
// BenchmarkQueueNavigatePreview).
func BenchmarkQueueNavigate(b *testing.B) {
	m := navModel(b, 10_000)
	m.preview.off = true
	down, top := keyMsg("j"), keyMsg("g")
	var times []time.Duration
	defer benchmetrics.CPUPerOp(b)()
	for b.Loop() {
		t := time.Now()
		k := down
		if m.queue.cursor == len(m.queue.rows)-1 {
			k = top
		}
		m.Update(k)
		_ = m.View()
		times = append(times, time.Since(t))
	}
	benchmetrics.Percentiles(b, times)
}

// twentyKB records a conflict between two units of about 20 KB of
// markdown each and returns the screen, sized, and the conflict's id.
func twentyKB(b *testing.B) (*Model, string) {
	b.Helper()
	f := rt.New(b, rt.Policy())
	p := f.Contradict(b, model.ConflictFactual,
		rt.Side{Content: fieldgen.Markdown(1, 20<<10)}, rt.Side{Content: fieldgen.Markdown(2, 20<<10)})
	m := New(f.Svc, Options{Field: f.Path, As: rt.Operator, Theme: "dark"})
	m.Update(benchSize)
	return m, p.Conflict
}

// BenchmarkRenderUnit20KB renders one unit of 20 KB of markdown: cold
// (glamour at work, the renderer for the width already made), first (the
// renderer made too: the first unit of a session) and cached (what the
// screen does once the unit was rendered at this width).
func BenchmarkRenderUnit20KB(b *testing.B) {
	content := fieldgen.Markdown(1, 20<<10)
	const width = 72
	b.Run("cold", func(b *testing.B) {
		md := newMarkdown()
		md.Render("warm up the renderer", width, "dark")
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			md.Render(content, width, "dark")
		}
	})
	b.Run("first", func(b *testing.B) {
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			newMarkdown().Render(content, width, "dark")
		}
	})
	b.Run("cached", func(b *testing.B) {
		m, id := twentyKB(b)
		openTimed(b, m, id, nil)
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			m.fillPanes()
		}
	})
}

// opening is what openTimed saw: the first frame in which both panes
// show formatted text, at least their first screenful, and the frame once
// both units are formatted whole, each with the time it took.
type opening struct {
	first, whole     string
	toFirst, toWhole time.Duration
}

// openTimed opens conflict id on m as a person does (enter on the
// queue), with every command run as the program runs it, until both
// units are formatted whole. It calls shown, if not nil, at the first
// frame.
func openTimed(b *testing.B, m *Model, id string, shown func()) opening {
	b.Helper()
	t := time.Now()
	m.toQueue()
	cmds := newDriver(b, m)
	cmds.start(m.open(id))
	_, cmd := m.Update(cmds.next(func(msg tea.Msg) bool { _, ok := msg.(detailLoadedMsg); return ok }))
	cmds.start(cmd)
	var o opening
	for {
		whole := unitsShown(m, true)
		if o.first == "" && unitsShown(m, false) || whole {
			frame, at := m.View().Content, time.Since(t)
			if o.first == "" {
				o.first, o.toFirst = frame, at
				if shown != nil {
					shown()
				}
			}
			if whole {
				o.whole, o.toWhole = frame, at
				return o
			}
		}
		_, cmd := m.Update(cmds.next(func(msg tea.Msg) bool { _, ok := msg.(renderedMsg); return ok }))
		cmds.start(cmd)
	}
}

// unitsShown says whether both panes show formatted text: at least the
// head, or (whole) all of it.
func unitsShown(m *Model, whole bool) bool {
	for i := range 2 {
		f := m.cache[m.conflict.key(i, m.styles.Theme.Name())]
		if f.text == "" || whole && f.partial {
			return false
		}
	}
	return true
}

// BenchmarkOpenConflict20KB opens a conflict of two 20 KB units: the
// detail read from the field, both units rendered (cold: never seen at
// this width), the frame drawn. cold/firstFrame is the time until the
// first frame that shows both units formatted as far as their panes show
// them (its cpu-ms/op counts the formatting of the rest too);
// cold/complete is the time until both are formatted whole. cached is
// the same conflict again, its renderings in the screen's cache;
// cachedUpdateView is only the screen's own work then (Update of the
// loaded detail, and View), without the field's read.
func BenchmarkOpenConflict20KB(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		b.Run("firstFrame", func(b *testing.B) {
			m, id := twentyKB(b)
			var o opening
			var times []time.Duration
			defer benchmetrics.CPUPerOp(b)()
			for b.Loop() {
				clear(m.cache)
				o = openTimed(b, m, id, b.StopTimer) // the rest is not timed
				b.StartTimer()
				times = append(times, o.toFirst)
			}
			benchmetrics.Percentiles(b, times)
			if strings.Contains(o.first, "Rendering…") || strings.Contains(o.first, "Formatting the rest…") {
				b.Fatalf("the first frame does not show both units as far as their panes reach:\n%s", o.first)
			}
		})
		b.Run("complete", func(b *testing.B) {
			m, id := twentyKB(b)
			var o opening
			var times []time.Duration
			defer benchmetrics.CPUPerOp(b)()
			for b.Loop() {
				clear(m.cache)
				o = openTimed(b, m, id, nil)
				times = append(times, o.toWhole)
			}
			benchmetrics.Percentiles(b, times)
			if strings.Contains(o.whole, "Rendering…") || strings.Contains(o.whole, "Formatting the rest…") {
				b.Fatalf("the frame still waits for a rendering:\n%s", o.whole)
			}
		})
	})
	b.Run("cached", func(b *testing.B) {
		m, id := twentyKB(b)
		openTimed(b, m, id, nil)
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			openTimed(b, m, id, nil)
		}
	})
	b.Run("cachedUpdateView", func(b *testing.B) {
		m, id := twentyKB(b)
		openTimed(b, m, id, nil)
		m.toQueue()
		detail := newDriver(b, m).collect(m.open(id), func(msg tea.Msg) bool { _, ok := msg.(detailLoadedMsg); return ok }, 1)[0]
		var times []time.Duration
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			t := time.Now()
			m.Update(detail)
			_ = m.View()
			times = append(times, time.Since(t))
		}
		benchmetrics.Percentiles(b, times)
	})
}

// readPreviews reads, as the screen does while the cursor rests on them,
// the previews of the first n rows of m's queue, running each read on
// the benchmark's goroutine.
func readPreviews(b *testing.B, m *Model, n int) {
	b.Helper()
	m.preview.loading = "" // a read navModel asked for, and dropped
	for i := range n {
		m.queue.cursor = i
		// Each read's answer asks for the next one near the cursor.
		for cmd := m.wantPreview(); cmd != nil; {
			_, cmd = m.Update(cmd())
		}
	}
	m.queue.cursor, m.queue.top = 0, 0
	m.Update(benchSize)
}

// BenchmarkQueueNavigatePreview is one cursor move in a queue of 10,000
// conflicts with the preview beside it (160 columns): Update moves the
// cursor and View draws the queue and the preview of the row now under
// it. read: every row moved over was read before (the preview kept);
// unread: rows never read, whose preview shows the row's own fields at
// once while their units are read in a command (not run here, as the
// program runs it on another goroutine).
func BenchmarkQueueNavigatePreview(b *testing.B) {
	const rows = 200 // within what the preview keeps (maxPreviews)
	run := func(b *testing.B, m *Model, span int) {
		if !m.previewShown() {
			b.Fatal("the preview is not shown at 160 columns")
		}
		down, up := keyMsg("j"), keyMsg("k")
		var times []time.Duration
		dir := down
		defer benchmetrics.CPUPerOp(b)()
		for b.Loop() {
			switch {
			case m.queue.cursor >= span-1:
				dir = up
			case m.queue.cursor == 0:
				dir = down
			}
			t := time.Now()
			m.Update(dir)
			_ = m.View()
			times = append(times, time.Since(t))
		}
		benchmetrics.Percentiles(b, times)
	}
	b.Run("read", func(b *testing.B) {
		m := navModel(b, 10_000)
		readPreviews(b, m, rows)
		run(b, m, rows)
		if f := m.View().Content; !strings.Contains(f, "A:") || strings.Contains(f, "Reading both units") {
			b.Fatalf("the preview of a row read before is not shown whole:\n%s", ansi.Strip(f))
		}
	})
	b.Run("unread", func(b *testing.B) {
		m := navModel(b, 10_000)
		run(b, m, len(m.queue.rows))
	})
}
