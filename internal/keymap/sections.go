package keymap

import (
	"unicode"
	"unicode/utf8"
)

// A Section is the bindings that act in one place of the screen, as the
// help lists them under a heading: every binding of the table that acts
// there, whatever screen it belongs to, so that a binding added to the
// table appears under the heading of each place it acts in.
type Section struct {
	// Title is the place, as a heading: "The queue", "Forms".
	Title string
	// In is the place (for forms, all their parts).
	In Context
	// Entries are the bindings acting there, in the table's order. An
	// entry acting in one part of a place only (a form's choice of A or
	// B) says which in Where.
	Entries []SectionEntry
}

// SectionEntry is a binding as a section lists it.
type SectionEntry struct {
	Entry
	// Where names the part of the section's place the binding acts in,
	// when it does not act in all of it ("" when it does).
	Where string
}

// groups are places the help lists under one heading.
var groups = []struct {
	in    Context
	title string
}{{Form, "Forms"}}

// Sections are m's bindings grouped by the place they act in, the place
// first first (the screen in front), then the others in the table's
// order of places; the bindings that act everywhere come last, under
// "Everywhere", and in no other section.
func (m Map) Sections(first Context) []Section {
	var out []Section
	done := Context(0)
	for i := range contextNames {
		bit := Context(1) << i
		if done&bit != 0 {
			continue
		}
		in, title := bit, heading(contextNames[i])
		for _, g := range groups {
			if g.in&bit != 0 {
				in, title = g.in, g.title
			}
		}
		done |= in
		s := Section{Title: title, In: in}
		for _, e := range m.Entries() {
			if e.In == Everywhere || e.In&in == 0 {
				continue
			}
			se := SectionEntry{Entry: e}
			if part := e.In & in; part != in {
				se.Where = part.String()
			}
			s.Entries = append(s.Entries, se)
		}
		if len(s.Entries) > 0 {
			out = append(out, s)
		}
	}
	for i, s := range out {
		if s.In&first != 0 && i > 0 {
			out = append([]Section{s}, append(out[:i:i], out[i+1:]...)...)
			break
		}
	}
	all := Section{Title: "Everywhere", In: Everywhere}
	for _, e := range m.Entries() {
		if e.In == Everywhere {
			all.Entries = append(all.Entries, SectionEntry{Entry: e})
		}
	}
	if len(all.Entries) > 0 {
		out = append(out, all)
	}
	return out
}

// heading is a place's name as a heading: "the queue" → "The queue".
func heading(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}
