package tui

import (
	"slices"
	"strings"
	"unicode/utf8"

	"arbiter/internal/keymap"

	"charm.land/bubbles/v2/key"
)

// The bindings themselves are internal/keymap's table. Every hint that
// names a key is built here from it, never written out.

// quitKey is the binding that quits from the screen in front: in a
// form or the help, quit's keys do something else.
func (m *Model) quitKey() key.Binding {
	if t, ok := m.top().(typing); ok && t.typing() {
		return m.keys.ForceQuit
	}
	return m.keys.Quit
}

// keyOf names a binding's keys as the help shows them: "esc", "↑/k".
func keyOf(b key.Binding) string { return b.Help().Key }

// helpOf is a binding's keys and what it does: "ctrl+e $EDITOR".
func helpOf(b key.Binding) string { return b.Help().Key + " " + b.Help().Desc }

// keysOf splits a binding's help into the keys it names ("a/←": a, ←).
func keysOf(b key.Binding) []string {
	label := keyOf(b)
	parts := strings.Split(label, "/")
	if slices.Contains(parts, "") { // a key is "/" itself
		return []string{label}
	}
	return parts
}

// sidesHint names the keys that choose A and B: "a/b or ←/→".
func sidesHint(k keymap.Map) string {
	a, b := keysOf(k.ChooseA), keysOf(k.ChooseB)
	if len(a) != len(b) {
		return keyOf(k.ChooseA) + " for A, " + keyOf(k.ChooseB) + " for B"
	}
	pairs := make([]string, len(a))
	for i := range a {
		pairs[i] = a[i] + "/" + b[i]
	}
	return strings.Join(pairs, " or ")
}

// defaultAnswer names the key of the answer a prompt takes when any other
// key is pressed, a single letter in capitals as in "y/N".
func defaultAnswer(b key.Binding) string {
	k := keyOf(b)
	if utf8.RuneCountInString(k) == 1 {
		return strings.ToUpper(k)
	}
	return k
}

// decisionKey shows a decision binding, marked when decisions are
// disabled so the reason is one key press away.
func (m *Model) decisionKey(b key.Binding) key.Binding {
	if m.canDecide() != "" {
		mark := " (disabled)"
		if m.readOnly != "" || m.opt.As == "" {
			mark = " (read-only)"
		}
		h := b.Help()
		b.SetHelp(h.Key, h.Desc+mark)
	}
	return b
}
