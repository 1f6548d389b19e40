// Package statsview draws a field's figures (model.Stats) as text
// charts — horizontal bars and sparklines — for the review screen's stats
// screen and `arbiter stats`. The charts are drawn by hand with lipgloss
// v2 styles (ntcharts is built on the v1 Charm stack); every figure is
// also written as a number, so they read without colour (NO_COLOR).
package statsview

import (
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Styles are the styles the charts are drawn with; the zero value draws
// plain text.
type Styles struct {
	Title, Label, Muted, Bar, Warn lipgloss.Style
}

// Render draws s in lines of at most w cells.
func Render(s model.Stats, w int, st Styles) string {
	w = max(40, w)
	var out []string
	section := func(title string, lines ...string) {
		if len(lines) == 0 {
			return
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, st.Title.Render(title))
		out = append(out, lines...)
	}
	section(fmt.Sprintf("Open conflicts: %d", openTotal(s)), openLines(s, w, st)...)
	section("Queue per day since "+s.Since.Format("2006-01-02"), dayLines(s, w, st)...)
	section("Time to decision (p50 bar, p90)", timeLines(s, w, st)...)
	section("Agents whose units collide most", pairLines(s, w, st)...)
	section("Units lost and won, by author", outcomeLines(s, w, st)...)
	section("Escalations open, by owner", ownerLines(s, w, st)...)
	section("Ballots, by voter (votes opened since "+s.Since.Format("2006-01-02")+")", voterLines(s, w, st)...)
	section("Fallbacks executed", fallbackLines(s, w, st)...)
	var lines []string
	for _, l := range out {
		lines = append(lines, fit(l, w)...)
	}
	return strings.Join(lines, "\n")
}

// fit is line in lines of at most w cells: wrapped at spaces (never in a
// word, nor after a hyphen of a name), the lines after the first
// indented by two; a word wider than w alone is cut.
func fit(line string, w int) []string {
	if ansi.StringWidth(line) <= w {
		return []string{line}
	}
	const nbHyphen = "\u2011"
	held := strings.ReplaceAll(strings.ReplaceAll(line, nbHyphen, "\x00"), "-", nbHyphen)
	first, rest, _ := strings.Cut(ansi.Wrap(held, w, " "), "\n")
	out := []string{first}
	if rest != "" {
		for _, l := range strings.Split(ansi.Wrap(strings.ReplaceAll(rest, "\n", " "), w-2, " "), "\n") {
			out = append(out, "  "+l)
		}
	}
	for i, l := range out {
		out[i] = ansi.Truncate(strings.ReplaceAll(strings.ReplaceAll(l, nbHyphen, "-"), "\x00", nbHyphen), w, "…")
	}
	return out
}

func openTotal(s model.Stats) int {
	n := 0
	for _, o := range s.Open {
		n += o.Count
	}
	return n
}

// openLines: one bar a status, its types and its ages.
func openLines(s model.Stats, w int, st Styles) []string {
	type row struct {
		n                    int
		types                []string
		hour, day, week, old int
	}
	var order []model.ConflictStatus
	by := map[model.ConflictStatus]*row{}
	for _, o := range s.Open {
		r := by[o.Status]
		if r == nil {
			r = &row{}
			by[o.Status] = r
			order = append(order, o.Status)
		}
		r.n += o.Count
		r.types = append(r.types, fmt.Sprintf("%s %d", o.Type, o.Count))
		r.hour, r.day, r.week, r.old = r.hour+o.UnderHour, r.day+o.UnderDay, r.week+o.UnderWeek, r.old+o.Older
	}
	most := 0
	for _, r := range by {
		most = max(most, r.n)
	}
	var out []string
	for _, status := range order {
		r := by[status]
		out = append(out, barLine(st, strings.ReplaceAll(string(status), "_", " "), 14, r.n, most, barWidth(w), ""))
		out = append(out, st.Muted.Render(fmt.Sprintf("  %s · age <1h %d, <1d %d, <1w %d, older %d",
			strings.Join(r.types, ", "), r.hour, r.day, r.week, r.old)))
	}
	return out
}

// dayLines: two sparklines, opened and decided a day.
func dayLines(s model.Stats, w int, st Styles) []string {
	if len(s.Days) == 0 {
		return nil
	}
	days := s.Days
	if room := w - 24; len(days) > room {
		days = days[len(days)-room:] // the latest that fit
	}
	opened, decided := make([]int, len(days)), make([]int, len(days))
	to, td := 0, 0
	for i, d := range days {
		opened[i], decided[i] = d.Opened, d.Decided
		to, td = to+d.Opened, td+d.Decided
	}
	most := 0
	for i := range days {
		most = max(most, opened[i], decided[i])
	}
	return []string{
		st.Label.Render(pad("opened", 9)) + st.Bar.Render(Sparkline(opened, most)) + fmt.Sprintf(" %d", to),
		st.Label.Render(pad("decided", 9)) + st.Bar.Render(Sparkline(decided, most)) + fmt.Sprintf(" %d", td),
		st.Muted.Render(pad("", 9) + days[0].Day + " … " + days[len(days)-1].Day + fmt.Sprintf(", a day a column, highest %d", most)),
	}
}

// timeLines: a bar of p50 a group, p90 after it, by type, strategy and
// person.
func timeLines(s model.Stats, w int, st Styles) []string {
	var most int64
	lw := 20 // the labels' column: as wide as the longest, up to 32
	for _, d := range s.DecisionTime {
		most = max(most, d.P50MS)
		lw = max(lw, min(32, ansi.StringWidth(safetext.Line(d.Key))+4))
	}
	var out []string
	last := ""
	for _, d := range s.DecisionTime {
		if d.Dimension != last {
			out = append(out, st.Muted.Render("by "+d.Dimension))
			last = d.Dimension
		}
		bar := Bar(float64(d.P50MS), float64(most), max(4, barWidth(w)-6-(lw-20)))
		out = append(out, st.Label.Render(pad("  "+safetext.Line(d.Key), lw))+st.Bar.Render(bar)+
			fmt.Sprintf(" %s p50 · %s p90 · %d", Duration(d.P50MS), Duration(d.P90MS), d.Count))
	}
	return out
}

func pairLines(s model.Stats, w int, st Styles) []string {
	most := 0
	for _, p := range s.Pairs {
		most = max(most, p.Conflicts)
	}
	var out []string
	for _, p := range s.Pairs {
		out = append(out, barLine(st, safetext.Line(p.AgentA)+" × "+safetext.Line(p.AgentB), 30, p.Conflicts, most, barWidth(w)-10, ""))
	}
	return out
}

func outcomeLines(s model.Stats, w int, st Styles) []string {
	most := 0
	for _, o := range s.Outcomes {
		most = max(most, o.Lost)
	}
	var out []string
	for i, o := range s.Outcomes {
		if i == 10 {
			out = append(out, st.Muted.Render(fmt.Sprintf("  and %d more", len(s.Outcomes)-10)))
			break
		}
		out = append(out, barLine(st, safetext.Line(o.Agent), 16, o.Lost, most, barWidth(w)-6, fmt.Sprintf(" lost · %d won", o.Won)))
	}
	return out
}

func ownerLines(s model.Stats, w int, st Styles) []string {
	most := 0
	for _, o := range s.Owners {
		most = max(most, o.Open)
	}
	var out []string
	for _, o := range s.Owners {
		name := safetext.Line(o.Owner)
		if name == "" {
			name = "operators"
		}
		late := fmt.Sprintf(" · %d overdue", o.Overdue)
		if o.Overdue > 0 {
			late = st.Warn.Render(fmt.Sprintf(" · ! %d overdue", o.Overdue))
		}
		out = append(out, barLine(st, name, 16, o.Open, most, barWidth(w)-6, " open"+late))
	}
	return out
}

func voterLines(s model.Stats, w int, st Styles) []string {
	most := 0
	for _, v := range s.Voters {
		most = max(most, v.Cast+v.Missed)
	}
	var out []string
	for _, v := range s.Voters {
		out = append(out, barLine(st, safetext.Line(v.Voter), 16, v.Cast, most, barWidth(w)-6, fmt.Sprintf(" cast · %d missed", v.Missed)))
	}
	return out
}

func fallbackLines(s model.Stats, w int, st Styles) []string {
	if len(s.Fallbacks) == 0 {
		return []string{st.Muted.Render("none")}
	}
	most := 0
	for _, f := range s.Fallbacks {
		most = max(most, f.Count)
	}
	var out []string
	for _, f := range s.Fallbacks {
		out = append(out, barLine(st, f.Strategy, 20, f.Count, most, barWidth(w)-6, ""))
	}
	return out
}

// barLine is "label  ████▌ n note".
func barLine(st Styles, label string, lw, n, most, bw int, note string) string {
	return st.Label.Render(pad(label, lw)) + st.Bar.Render(Bar(float64(n), float64(most), bw)) + fmt.Sprintf(" %d", n) + note
}

// barWidth is the widest a bar may be at width w.
func barWidth(w int) int { return max(8, min(40, w-44)) }

// pad cuts or pads s to n cells.
func pad(s string, n int) string {
	s = ansi.Truncate(s, n-1, "…")
	return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
}

// eighths are the blocks of a bar's last cell, an eighth at a time.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// Bar is v of most as a bar of at most w cells, to the eighth of a cell;
// a value above zero shows at least an eighth. It pads to w cells.
func Bar(v, most float64, w int) string {
	if most <= 0 || v <= 0 {
		return strings.Repeat(" ", w)
	}
	units := int(v / most * float64(w*8))
	units = max(1, min(units, w*8))
	s := strings.Repeat("█", units/8) + eighths[units%8]
	return s + strings.Repeat(" ", w-ansi.StringWidth(s))
}

// levels are a sparkline's eight heights.
var levels = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws each value as one cell of eight heights, most the
// tallest; zero is a blank.
func Sparkline(vs []int, most int) string {
	var b strings.Builder
	for _, v := range vs {
		switch {
		case v <= 0 || most <= 0:
			b.WriteRune(' ')
		default:
			b.WriteRune(levels[min(7, (v*8-1)/most)])
		}
	}
	return b.String()
}

// Duration is ms in one or two short units: "45s", "3m", "2h 5m", "3d 4h".
func Duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours()/24), int(d.Hours())%24)
}
