package akashiklog

import (
	"cmp"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Ordered returns the log's events in replay order (see Compare), not in
// file order and not by seq. The log itself is left as read.
func (l *Log) Ordered() []Event {
	return sortedEvents(l.Events)
}

func sortedEvents(events []Event) []Event {
	out := slices.Clone(events)
	slices.SortStableFunc(out, func(a, b Event) int { return Compare(&a, &b) })
	return out
}

// Compare orders events the way the SDK replays them: by lamport, then by
// agent (null before any string), then by event_id. Strings compare by
// UTF-16 code units, as JavaScript's < does.
func Compare(a, b *Event) int {
	if c := cmp.Compare(a.Lamport, b.Lamport); c != 0 {
		return c
	}
	switch {
	case a.Agent == nil && b.Agent != nil:
		return -1
	case a.Agent != nil && b.Agent == nil:
		return 1
	case a.Agent != nil:
		if c := compareJS(*a.Agent, *b.Agent); c != 0 {
			return c
		}
	}
	return compareJS(a.EventID, b.EventID)
}

// compareJS compares strings by UTF-16 code units. It differs from Go's byte
// order only when one side has a character above U+FFFF and the other a
// character in U+E000..U+FFFF at the same position.
func compareJS(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return cmp.Compare(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) { // back up to the differing rune's start
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return cmp.Compare(utf16Key(ra), utf16Key(rb))
}

// utf16Key orders a rune by its UTF-16 encoding: lead unit, then trail unit.
func utf16Key(r rune) uint32 {
	if r < 0x10000 {
		return uint32(r) << 16
	}
	lead, trail := utf16.EncodeRune(r)
	return uint32(lead)<<16 | uint32(trail)
}
