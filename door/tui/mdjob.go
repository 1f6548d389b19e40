package tui

import (
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"

	"github.com/charmbracelet/x/ansi"
)

// formatJob is one unit's formatting under way: the pieces formatted so
// far and those left. Render does it all in one call; RenderHead and
// Finish do it in two, and the job is what passes from one to the other
// (in a renderedMsg, never in the model).
type formatJob struct {
	width int
	theme string
	text  string   // the sanitised text
	left  []string // pieces not formatted yet
	done  int      // bytes of text formatted
	out   strings.Builder
	lines int  // newlines in out
	plain bool // out is the text as it is: it nests too deeply to format
	// spent fires when the time budget is spent (over, from then on).
	spent <-chan time.Time
	over  bool
	// tail follows the formatted text once it is whole: the note on what
	// was cut.
	tail string
}

// begin prepares the formatting of content, and formats it at once when
// it nests too deeply to format (as plain text, with a note).
func (m *markdown) begin(content string, width int, theme string, first int) *formatJob {
	text, cut := safetext.Truncate(safetext.Block(content), maxRenderBytes)
	j := &formatJob{width: width, theme: theme, text: text, spent: time.After(m.budget)}
	if cut {
		j.tail = "\n\n" + ansi.Wrap(fmt.Sprintf("… shown: the first %d KB of %d KB. Press %s for the raw text.",
			maxRenderBytes>>10, len(content)>>10, m.rawKey), width, " ")
	}
	if depth := nestingDepth(text); depth > maxNesting {
		j.plain = true
		j.write(ansi.Wrap(fmt.Sprintf("Shown as plain text: it nests %d levels deep, too deep to format. Press %s for the raw text.",
			depth, m.rawKey)+"\n\n"+text, width, " "))
		return j
	}
	j.left = pieces(text, first)
	return j
}

// format formats pieces until the output has at least lines lines (all
// of them when lines < 0) or the time budget is spent; then the rest
// follows as plain text.
func (m *markdown) format(j *formatJob, lines int) {
	for len(j.left) > 0 && (lines < 0 || j.lines+1 < lines) {
		if j.overBudget() {
			j.write("\n\n" + ansi.Wrap(fmt.Sprintf("… formatted: the first %d KB. Formatting took too long, so the rest follows as plain text.",
				j.done>>10)+"\n\n"+strings.TrimRight(j.text[j.done:], "\n "), j.width, " "))
			j.left = nil
			break
		}
		p := j.left[0]
		var out string
		if isTable(p) {
			out = renderTable(p, j.width, j.theme)
		} else {
			var err error
			if out, err = m.renderPiece(p, j.width, j.theme); err != nil {
				out = ansi.Wrap(p, j.width, " ")
			}
			out = strings.TrimRight(onlySGR(out), "\n ")
		}
		if j.out.Len() > 0 { // glamour opens each piece with blank lines
			out = "\n\n" + strings.TrimLeft(out, "\n")
		}
		j.write(out)
		j.done += len(p)
		j.left = j.left[1:]
	}
}

// overBudget reports whether the job's time budget is spent.
func (j *formatJob) overBudget() bool {
	if !j.over {
		select {
		case <-j.spent:
			j.over = true
		default:
		}
	}
	return j.over
}

func (j *formatJob) write(s string) {
	j.out.WriteString(s)
	j.lines += strings.Count(s, "\n")
}

func (j *formatJob) finished() bool { return len(j.left) == 0 }

// result is the text formatted so far, as a pane shows it.
func (j *formatJob) result() string {
	out := j.out.String()
	if !j.plain {
		out = strings.TrimRight(out, "\n ")
	}
	if j.finished() {
		out += j.tail
	}
	return out
}
