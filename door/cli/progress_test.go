package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/progress"
)

// fakeClock moves on by step at each reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

// Not on a terminal, long work prints a plain line now and then: the
// count, the rate, the time left; and a last line when done.
func TestProgressIsPlainLinesWhenNotATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "copy", "rows", 200_000)
	p.now = fakeClock(time.Millisecond)
	p.start = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	p.shown = p.start
	for range 20_000 {
		p.add(10)
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d lines for 20 s of work:\n%s", len(lines), out.String())
	}
	if first := lines[0]; !strings.HasPrefix(first, "copy 50,000/200,000 rows (25%) · 9,99") || !strings.HasSuffix(first, " rows/s · 15s left") {
		t.Errorf("first line %q, want the count, the rate (~10,000 rows/s) and 15s left", first)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "copy 200,000 rows · 9,99") || !strings.HasSuffix(last, " rows/s · 20s") {
		t.Errorf("last line %q", last)
	}
	if strings.Contains(out.String(), "\r") || strings.Contains(out.String(), "\x1b") {
		t.Errorf("plain lines carry terminal controls: %q", out.String())
	}
}

// On a terminal the line is redrawn in place, with a bar.
func TestProgressIsABarOnATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "copy", "rows", 1000)
	p.terminal, p.every = true, 100*time.Millisecond
	p.bar = progress.New(progress.WithWidth(30), progress.WithoutPercentage(), progress.WithFillCharacters('#', '.'))
	p.now = fakeClock(50 * time.Millisecond)
	p.start = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	p.shown = p.start
	for range 10 {
		p.add(50)
	}
	s := out.String()
	if !strings.HasPrefix(s, "\r\x1b[2K") || !strings.Contains(s, "/1,000 rows (") || !strings.Contains(s, "left") {
		t.Fatalf("no line redrawn in place: %q", s)
	}
	if !strings.Contains(s, "#") || !strings.Contains(s, ".") {
		t.Errorf("no bar: %q", s)
	}
}

// Quick work says nothing.
func TestProgressOfQuickWorkSaysNothing(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "apply", "decisions", 3)
	p.add(3)
	p.finish()
	if out.Len() != 0 {
		t.Errorf("quick work printed %q", out.String())
	}
}

// Work that counts itself (import, export) sets the count and the total.
func TestProgressTakesACountAndATotal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "import", "entries", 0)
	p.now = fakeClock(time.Second)
	p.start = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	p.shown = p.start
	for i := range int64(11) {
		p.set(i*10, 100)
	}
	p.finish()
	s := out.String()
	if !strings.Contains(s, "/100 entries (") || !strings.HasPrefix(strings.Split(strings.TrimSpace(s), "\n")[len(strings.Split(strings.TrimSpace(s), "\n"))-1], "import 100 entries") {
		t.Errorf("lines:\n%s", s)
	}
}
