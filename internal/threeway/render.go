package threeway

import "strings"

// Annotated writes the comparison as one plain text, every change marked
// with groups such as [base: 40][A: 55][B: 38] (see the package
// documentation for every form).
func (c Comparison) Annotated() string {
	var b strings.Builder
	for _, r := range c.Regions {
		if r.Change == Unchanged {
			b.WriteString(escapeMarkers(r.A))
			continue
		}
		type group struct{ label, text string }
		var gs []group
		if c.ThreeWay {
			gs = append(gs, group{"base", r.Base})
		}
		switch r.Change {
		case ChangedA:
			gs = append(gs, group{"A", r.A})
		case ChangedB:
			gs = append(gs, group{"B", r.B})
		case ChangedBoth:
			gs = append(gs, group{"A+B", r.A})
		default:
			gs = append(gs, group{"A", r.A}, group{"B", r.B})
		}
		// A stretch of whole lines keeps its last line break outside.
		lines := true
		for _, g := range gs {
			if g.text != "" && !strings.HasSuffix(g.text, "\n") {
				lines = false
			}
		}
		for _, g := range gs {
			text := g.text
			if lines {
				text = strings.TrimSuffix(text, "\n")
			}
			switch {
			case g.text != "":
				b.WriteString("[" + g.label + ": " + escapeMarkers(text) + "]")
			case g.label != "base" && c.ThreeWay:
				b.WriteString("[" + g.label + " deleted]")
			}
		}
		if lines {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// markerEscaper puts a backslash before the bracket of field text that
// would read as a group of the annotated text.
var markerEscaper = strings.NewReplacer(
	"[base:", `\[base:`, "[A:", `\[A:`, "[B:", `\[B:`, "[A+B:", `\[A+B:`,
	"[A deleted]", `\[A deleted]`, "[B deleted]", `\[B deleted]`, "[A+B deleted]", `\[A+B deleted]`,
)

func escapeMarkers(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	return markerEscaper.Replace(s)
}
