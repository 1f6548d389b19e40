package tui

import (
	"fmt"
	"strings"
	"testing"

	rt "arbiter/service/review/reviewtest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// These tests hand the screen its messages one at a time, in the order
// each test needs, to pin what happens between a unit's head and its rest.

// openedOnHeads opens a conflict whose unit A is long on a sized screen
// and returns the screen's driver and the heads of both units, not yet
// handled.
func openedOnHeads(t *testing.T) (*driver, renderedMsg, renderedMsg) {
	t.Helper()
	f, pair := hostileConflict(t, longUnit())
	m := New(f.Svc, Options{Field: f.Path, As: rt.Operator, Theme: "dark"})
	m.md = unhurried()
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	d := newDriver(t, m)
	m.open(pair.Conflict)
	_, cmd := m.Update(d.run(loadDetail(m.ctx, f.Svc, pair.Conflict))[0])
	var a, b renderedMsg
	for _, msg := range d.run(cmd) {
		r := msg.(renderedMsg)
		if r.key == m.conflict.key(0, m.styles.Theme.Name()) {
			a = r
		} else {
			b = r
		}
	}
	if a.rest == nil || b.rest != nil {
		t.Fatalf("want a head with more to come for A (%v) and all of B at once (%v)", a.rest != nil, b.rest == nil)
	}
	return d, a, b
}

// seeTheEnd goes to the end of unit A and checks that it is formatted.
func seeTheEnd(t *testing.T, m *Model) {
	t.Helper()
	m.Update(keyMsg("G"))
	f := ansi.Strip(m.View().Content)
	if !strings.Contains(f, "The end of a long unit.") || strings.Contains(f, "Formatting the rest…") {
		t.Fatalf("the end of unit A is not shown formatted:\n%s", f)
	}
}

func TestTheRestLandsWhenTheCacheStartsAfreshBetweenTheSteps(t *testing.T) {
	d, a, b := openedOnHeads(t)
	m := d.m
	_, rest := m.Update(a)
	if rest == nil {
		t.Fatal("the head came without the command for the rest")
	}
	for i := range maxCached + 1 { // other units, seen before
		m.cache[mdKey{unit: fmt.Sprint("mem-", i), width: 76, theme: "dark"}] = formatted{text: "x"}
	}
	m.Update(b) // starts the cache afresh
	if len(m.cache) != 2 {
		t.Errorf("the cache kept %d renderings, want the 2 on screen", len(m.cache))
	}
	if f := ansi.Strip(m.View().Content); !strings.Contains(f, "The start of a long unit.") ||
		!strings.Contains(f, "The short answer") {
		t.Fatalf("starting the cache afresh lost what is on screen:\n%s", f)
	}
	for _, msg := range d.run(rest) {
		m.Update(msg)
	}
	if f := m.cache[a.key]; f.partial {
		t.Fatal("unit A stays a head")
	}
	seeTheEnd(t, m)

	// Gone from the cache altogether (the reader went elsewhere), a unit's
	// rest still lands.
	d, a, _ = openedOnHeads(t)
	m = d.m
	_, rest = m.Update(a)
	clear(m.cache)
	for _, msg := range d.run(rest) {
		m.Update(msg)
	}
	if f := m.cache[a.key]; f.text == "" || f.partial {
		t.Fatalf("the rest of a unit off the cache was lost: %+v", f)
	}
}

func TestAHeadNeverReplacesTheWholeText(t *testing.T) {
	d, a, b := openedOnHeads(t)
	m := d.m
	m.Update(b)
	_, rest := m.Update(a)
	whole := d.run(rest)[0]
	m.Update(whole)
	// A second request for the same rendering (after the cache started
	// afresh) brings its head after the whole text is back.
	if _, cmd := m.Update(a); cmd != nil {
		t.Error("a head after the whole text asked for its rest again")
	}
	if f := m.cache[a.key]; f.partial || f.text != whole.(renderedMsg).out {
		t.Fatal("a head replaced the whole text")
	}
	seeTheEnd(t, m)
}

func TestAHeadForAnotherWidthIsKeptButNotShown(t *testing.T) {
	d, a, b := openedOnHeads(t)
	m := d.m
	m.Update(tea.WindowSizeMsg{Width: 150, Height: 40}) // asks for both again
	_, cmd := m.Update(a)
	if cmd == nil {
		t.Error("the head of a rendering no longer on screen did not go on to its rest")
	}
	m.Update(b)
	f := ansi.Strip(m.View().Content)
	if strings.Count(f, "Rendering…") != 2 {
		t.Errorf("renderings for the old width were shown at the new one:\n%s", f)
	}
	if m.cache[a.key].text == "" {
		t.Error("the head for the old width was not kept")
	}
}
