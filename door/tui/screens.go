package tui

import (
	"arbiter/internal/keymap"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A screen is one page of the review screen: the queue, a conflict, a
// form, the help. The root (Model) is the only tea.Model: it keeps the
// screens in a stack and routes to the one on top. A screen is a small
// value; what it shows lives in the root (the queue, the open conflict),
// so that a screen pushed again finds it as it was left.
type screen interface {
	// key handles a key press.
	key(m *Model, msg tea.KeyPressMsg) tea.Cmd
	// update handles any other message meant for the screen in front:
	// the mouse, a text box's cursor blinking.
	update(m *Model, msg tea.Msg) tea.Cmd
	// help is the bindings the footer shows.
	help(m *Model) []key.Binding
	// view draws the body, w × h cells.
	view(m *Model, w, h int) string
}

// A screen may also be typing: its keys are text or answers, so quit's
// keys do not quit it (force_quit does).
type typing interface{ typing() bool }

// A screen may also prepare, in Update, what its view costs to draw.
type preparer interface{ prepare(m *Model) }

// screens is every screen, each in its own file: a new one is written
// there, pushed by whatever opens it, and listed here once, so that the
// tests holding every screen to the same rules reach it.
func screens() []screen {
	return []screen{queueScreen{}, conflictScreen{}, decideScreen{}, voteScreen{}, helpScreen{under: queueScreen{}}, statsScreen{}, inboxScreen{}}
}

// top is the screen in front.
func (m *Model) top() screen { return m.stack[len(m.stack)-1] }

// push puts s in front.
func (m *Model) push(s screen) { m.stack = append(m.stack, s) }

// pop goes back to the screen below; the queue, at the bottom, stays.
func (m *Model) pop() {
	if len(m.stack) > 1 {
		m.stack = m.stack[:len(m.stack)-1]
	}
}

// toQueue goes back to the queue.
func (m *Model) toQueue() { m.stack = m.stack[:1] }

// inConflict reports whether a conflict is open: its view, or a form
// over it.
func (m *Model) inConflict() bool {
	for _, s := range m.stack {
		if _, ok := s.(conflictScreen); ok {
			return true
		}
	}
	return false
}

// A screen may also say where its keys act now (keymap's places): the
// help lists that place's bindings first, and the footer names help's
// key that works there. A screen without it is taken to be where most
// of its footer's bindings act.
type placed interface{ place(m *Model) keymap.Context }

// place is where the person's keys act now: the quick decision's prompt
// when it is open, else the screen in front's place.
func (m *Model) place() keymap.Context {
	if m.prompt != nil {
		if _, ok := m.top().(helpScreen); !ok {
			return keymap.InPrompt
		}
	}
	return placeOf(m, m.top())
}

// placeOf is where s's keys act now.
func placeOf(m *Model, s screen) keymap.Context {
	if p, ok := s.(placed); ok {
		return p.place(m)
	}
	votes := map[keymap.Context]int{}
	best := keymap.Context(0)
	for _, b := range s.help(m) {
		for _, e := range m.keys.Entries() {
			if !sameKeys(e.Binding, b) {
				continue
			}
			for bit := keymap.Context(1); bit != 0 && bit <= keymap.Everywhere; bit <<= 1 {
				if e.In&bit != 0 && e.In != keymap.Everywhere {
					votes[bit]++
					if votes[bit] > votes[best] {
						best = bit
					}
				}
			}
		}
	}
	return best
}
