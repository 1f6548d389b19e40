package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every binding of the screen. Names are what the config file
// uses to rebind them (keys.NAME = ["x", "ctrl+x"]).
type KeyMap struct {
	Up, Down, Top, Bottom, PageUp, PageDown, Open, Back, Quit, ForceQuit, Help key.Binding
	Filter, Sort, AllStatuses, Refresh                                         key.Binding
	NextPane, SyncScroll, Diff, History, Raw, Decide, Vote                     key.Binding
	Submit, Editor, Preview, Confirm, Cancel, Next, Prev                       key.Binding
}

// DefaultKeyMap is the bindings before any override.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:          b([]string{"k", "up"}, "↑/k", "up"),
		Down:        b([]string{"j", "down"}, "↓/j", "down"),
		Top:         b([]string{"g", "home"}, "g", "top"),
		Bottom:      b([]string{"G", "end"}, "G", "bottom"),
		PageUp:      b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:    b([]string{"pgdown", "ctrl+d", "space"}, "pgdn", "page down"),
		Open:        b([]string{"enter"}, "enter", "open"),
		Back:        b([]string{"esc"}, "esc", "back"),
		Quit:        b([]string{"q"}, "q", "quit"),
		ForceQuit:   b([]string{"ctrl+c"}, "ctrl+c", "quit"),
		Help:        b([]string{"?"}, "?", "help"),
		Filter:      b([]string{"/"}, "/", "filter"),
		Sort:        b([]string{"s"}, "s", "sort"),
		AllStatuses: b([]string{"a"}, "a", "all statuses"),
		Refresh:     b([]string{"ctrl+r"}, "ctrl+r", "reload"),
		NextPane:    b([]string{"tab"}, "tab", "switch pane"),
		SyncScroll:  b([]string{"L"}, "L", "lock scroll"),
		Diff:        b([]string{"w"}, "w", "word diff"),
		History:     b([]string{"h"}, "h", "history"),
		Raw:         b([]string{"r"}, "r", "raw text"),
		Decide:      b([]string{"d"}, "d", "decide"),
		Vote:        b([]string{"v"}, "v", "vote"),
		Submit:      b([]string{"ctrl+s"}, "ctrl+s", "submit"),
		Editor:      b([]string{"ctrl+e"}, "ctrl+e", "$EDITOR"),
		Preview:     b([]string{"ctrl+p"}, "ctrl+p", "preview"),
		Confirm:     b([]string{"y"}, "y", "yes"),
		Cancel:      b([]string{"n"}, "n", "no"),
		Next:        b([]string{"tab"}, "tab", "next field"),
		Prev:        b([]string{"shift+tab"}, "shift+tab", "previous field"),
	}
}

// Rebind applies overrides (binding name, case-insensitive → keys) and
// returns the names it did not know.
func (k *KeyMap) Rebind(overrides map[string][]string) []string {
	byName := map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "top": &k.Top, "bottom": &k.Bottom, "pageup": &k.PageUp,
		"pagedown": &k.PageDown, "open": &k.Open, "back": &k.Back, "quit": &k.Quit, "help": &k.Help,
		"filter": &k.Filter, "sort": &k.Sort, "allstatuses": &k.AllStatuses, "refresh": &k.Refresh,
		"nextpane": &k.NextPane, "syncscroll": &k.SyncScroll, "diff": &k.Diff, "history": &k.History,
		"raw": &k.Raw, "decide": &k.Decide, "vote": &k.Vote, "submit": &k.Submit, "editor": &k.Editor,
		"preview": &k.Preview, "confirm": &k.Confirm, "cancel": &k.Cancel,
	}
	var unknown []string
	for name, keys := range overrides {
		n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
		b, ok := byName[n]
		if !ok || len(keys) == 0 {
			unknown = append(unknown, name)
			continue
		}
		b.SetKeys(keys...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
	}
	return unknown
}
