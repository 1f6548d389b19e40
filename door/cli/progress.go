package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"charm.land/bubbles/v2/progress"
)

// progressReport shows how long work is going: on a terminal, one line
// redrawn in place with a bar (bubbles' progress), the count, the rate
// and the time left; elsewhere (a log, a pipe) a plain line now and then.
// total may be an estimate; 0 means unknown (no bar, no time left).
type progressReport struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	unit     string
	total    int64
	done     int64
	start    time.Time
	shown    time.Time
	terminal bool
	bar      progress.Model
	every    time.Duration
	now      func() time.Time
	any      bool   // a line was shown
	note     string // said after the count: "12 conflicts opened"
}

// newProgress reports to w (stderr) on label's work of total units.
func newProgress(w io.Writer, label, unit string, total int64) *progressReport {
	p := &progressReport{w: w, label: label, unit: unit, total: total, now: time.Now, every: 5 * time.Second}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		p.terminal, p.every = true, 100*time.Millisecond
		p.bar = progress.New(progress.WithWidth(30), progress.WithoutPercentage())
	}
	p.start = p.now()
	p.shown = p.start
	return p
}

// add counts n more units done, and shows it when it is time.
func (p *progressReport) add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if now := p.now(); now.Sub(p.shown) >= p.every {
		p.shown, p.any = now, true
		p.show(false)
	}
}

// set counts done of total units done, for work that counts itself.
func (p *progressReport) set(done, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.total = total
	n := done - p.done
	p.mu.Unlock()
	p.add(n)
}

// setNote makes the report say note after its count from now on.
func (p *progressReport) setNote(note string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.note = note
	p.mu.Unlock()
}

// finish shows the last line, if the report showed any: work done
// before the first line was due says nothing.
func (p *progressReport) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.any {
		p.show(true)
	}
}

// line is what the report says now: "copy 120,000/200,000 rows (60%) ·
// 9,512 rows/s · 8s left".
func (p *progressReport) line(done bool) string {
	elapsed := p.now().Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed.Seconds()
	}
	s := fmt.Sprintf("%s %s", p.label, thousands(p.done))
	if p.total > 0 && !done && p.done < p.total { // an estimate may fall short
		s += fmt.Sprintf("/%s %s (%d%%)", thousands(p.total), p.unit, min(100, p.done*100/p.total))
	} else {
		s += " " + p.unit
	}
	if p.note != "" {
		s += " · " + p.note
	}
	s += fmt.Sprintf(" · %s %s/s", thousands(int64(rate)), p.unit)
	switch {
	case done:
		s += " · " + elapsed.Round(100*time.Millisecond).String()
	case p.total > p.done && rate > 0:
		left := time.Duration(float64(p.total-p.done) / rate * float64(time.Second))
		s += " · " + left.Round(time.Second).String() + " left"
	}
	return s
}

func (p *progressReport) show(done bool) {
	if !p.terminal {
		fmt.Fprintln(p.w, p.line(done))
		return
	}
	bar := ""
	if p.total > 0 && !done {
		bar = p.bar.ViewAs(min(1, float64(p.done)/float64(p.total))) + " "
	}
	end := ""
	if done {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r\x1b[2K%s%s%s", bar, p.line(done), end)
}

// thousands writes n with commas: 1,234,567.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
