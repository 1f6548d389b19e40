// Package keymap is the review screen's one table of key bindings: each
// binding's name in the config file, its default keys, the help that
// shows them, and the places of the screen where it acts. The screen
// matches every key and builds every hint through it; the config checks
// a file's rebindings against it. It knows nothing else of either.
package keymap

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// Map is every binding of the screen.
type Map struct {
	Up, Down, Top, Bottom, PageUp, PageDown                             key.Binding
	Open, Filter, KeepFilter, Sort, AllStatuses, MineOnly, Refresh      key.Binding
	KeepA, KeepB, Dismiss, Mark, MarkAll, Accept, Undo                  key.Binding
	Approve, Modify, SendBack                                           key.Binding
	NextPane, SyncScroll, Diff, Raw, History, Reopen                    key.Binding
	Decide, Vote, Next, Prev, ChooseA, ChooseB, Submit, Editor, Preview key.Binding
	Confirm, Cancel, Back, Help, Quit, ForceQuit                        key.Binding
	ThreeWay, Suggest                                                   key.Binding
	Synthesize, TakeA, TakeB, WholeHeader, Stats                        key.Binding
	Inbox, DropDraft                                                    key.Binding
	PreviewPane, NextView, PrevView                                     key.Binding

	built bool
}

// row is one binding of the table.
type row struct {
	b    *key.Binding
	name string   // as the config file names it
	keys []string // the default keys
	help string   // how the help shows the default keys
	desc string   // what it does, in a word or two
	doc  string   // what it does, in a sentence
	in   Context  // where it acts
}

// columns is the table, one column of the help screen at a time.
func (m *Map) columns() [][]row {
	k := func(keys ...string) []string { return keys }
	return [][]row{{
		{&m.Up, "up", k("k", "up"), "↑/k", "up", "move up the queue, the inbox, a pane, the help or the strategies; an earlier rationale in the prompt", InQueue | InInbox | InConflict | InStrategy | InPrompt | InHelp},
		{&m.Down, "down", k("j", "down"), "↓/j", "down", "move down the queue, the inbox, a pane, the help or the strategies; a later rationale in the prompt", InQueue | InInbox | InConflict | InStrategy | InPrompt | InHelp},
		{&m.Top, "top", k("g", "home"), "g", "top", "go to the first conflict or notice, or the top of a pane or the help", InQueue | InInbox | InConflict | InHelp},
		{&m.Bottom, "bottom", k("G", "end"), "G", "bottom", "go to the last conflict or notice, or the end of a pane or the help", InQueue | InInbox | InConflict | InHelp},
		{&m.PageUp, "page_up", k("pgup", "ctrl+u"), "pgup", "page up", "move a page up", InQueue | InInbox | InConflict | InHelp},
		{&m.PageDown, "page_down", k("pgdown", "ctrl+d"), "pgdn", "page down", "move a page down", InQueue | InInbox | InConflict | InHelp},
	}, {
		{&m.Open, "open", k("enter"), "enter", "open", "open the conflict under the cursor, or the notice's", InQueue | InInbox},
		{&m.Filter, "filter", k("/"), "/", "filter", "filter the queue by id, type, agent or description", InQueue},
		{&m.KeepFilter, "keep_filter", k("enter"), "enter", "keep filter", "stop typing the filter and keep it", InFilter},
		{&m.Sort, "sort", k("s"), "s", "sort", "sort the queue by age or by type", InQueue},
		{&m.AllStatuses, "all_statuses", k("a"), "a", "all statuses", "show every status, not only what waits for people", InQueue},
		{&m.MineOnly, "mine_only", k("M"), "M", "mine only", "show only what is yours to decide or vote on, or everything", InQueue},
		{&m.Refresh, "refresh", k("ctrl+r"), "ctrl+r", "reload", "read the queue, the inbox or the figures again", InQueue | InInbox},
		{&m.Stats, "stats", k("#"), "#", "stats", "show the field's figures as charts: the queue, decision times, collisions, owners, voters", InQueue},
		{&m.Inbox, "inbox", k("i"), "i", "inbox", "show your notices, newest first, the unread marked; again to go back", InQueue | InInbox | InConflict},
		{&m.PreviewPane, "preview_pane", k("P"), "P", "preview", "show or hide the preview of the conflict under the cursor beside the queue (on a terminal of 140 columns or more)", InQueue},
		{&m.NextView, "next_view", k("]"), "]", "next view", "show the queue through the next view of the config file's views", InQueue},
		{&m.PrevView, "prev_view", k("["), "[", "previous view", "show the queue through the previous view", InQueue},
	}, {
		{&m.KeepA, "keep_a", k("A"), "A", "keep A", "decide at once: unit A prevails; on a conflict put to a vote, your ballot for A (asks for the rationale)", InQueue | InConflict},
		{&m.KeepB, "keep_b", k("B"), "B", "keep B", "decide at once: unit B prevails; on a conflict put to a vote, your ballot for B (asks for the rationale)", InQueue | InConflict},
		{&m.Dismiss, "dismiss", k("X"), "X", "dismiss", "decide at once: not a real conflict, both units stand", InQueue | InConflict},
		{&m.Mark, "mark", k("space"), "space", "mark", "mark or unmark the row, for a decision on every marked row", InQueue},
		{&m.MarkAll, "mark_all", k("*"), "*", "mark all", "mark every row shown, or unmark them all", InQueue},
		{&m.Accept, "accept", k("enter"), "enter", "write it", "write the quick decision the prompt describes", InPrompt},
		{&m.Undo, "undo", k("u"), "u", "undo", "take back the decision waiting to be written", InQueue | InConflict | InBusy},
		{&m.Approve, "approve", k("p"), "p", "approve", "carry out the escalating agent's proposal as your decision (asks for the rationale)", InQueue | InConflict},
		{&m.Modify, "modify", k("m"), "m", "modify", "change the proposal (the other unit, or its synthesis) in the decision form", InConflict},
		{&m.SendBack, "send_back", k("S"), "S", "send back", "send the conflict back to its authors for rework, your rationale their directive", InQueue | InConflict},
	}, {
		{&m.NextPane, "next_pane", k("tab"), "tab", "switch pane", "move between the two units", InConflict},
		{&m.SyncScroll, "sync_scroll", k("L"), "L", "lock scroll", "scroll both units together, or each on its own", InConflict},
		{&m.Diff, "diff", k("w"), "w", "word diff", "show the word diff of the two units", InConflict},
		{&m.ThreeWay, "three_way", k("3"), "3", "three-way", "show the unit both units revise and what each changed in it, when they revise one", InConflict},
		{&m.Raw, "raw", k("r"), "r", "raw text", "show the units' text as written", InConflict},
		{&m.WholeHeader, "whole_header", k("+"), "+", "whole header", "show the conflict's header in full, wrapped, with every ballot, in place of the units; again to go back", InConflict},
		{&m.History, "history", k("h"), "h", "history", "show the conflict's events and notifications", InConflict},
		{&m.Reopen, "reopen", k("R"), "R", "reopen", "take back a resolved conflict's decision (a human operator)", InConflict},
		{&m.DropDraft, "drop_draft", k("D"), "D", "drop draft", "drop the decision or ballot you left unwritten on the conflict, which it offers back", InConflict},
	}, {
		{&m.Decide, "decide", k("d"), "d", "decide", "write a decision on the conflict", InConflict},
		{&m.Vote, "vote", k("v"), "v", "vote", "vote on a conflict put to a vote", InConflict},
		{&m.Next, "next", k("tab"), "tab", "next field", "go to the form's next field", Form},
		{&m.Prev, "prev", k("shift+tab"), "shift+tab", "previous field", "go to the form's previous field", Form},
		{&m.ChooseA, "choose_a", k("a", "left", "h"), "a/←", "choose A", "choose unit A as the winner, or to vote for (other text typed there goes to the rationale)", InWinner},
		{&m.ChooseB, "choose_b", k("b", "right", "l"), "b/→", "choose B", "choose unit B as the winner, or to vote for (other text typed there goes to the rationale)", InWinner},
		{&m.Submit, "submit", k("ctrl+s"), "ctrl+s", "submit", "send the form: it asks before writing", Form},
		{&m.Editor, "editor", k("ctrl+e"), "ctrl+e", "$EDITOR", "write the synthesis in $EDITOR, with both units", Form},
		{&m.Preview, "preview", k("ctrl+p"), "ctrl+p", "preview", "show the synthesis formatted, or hide it", Form},
		{&m.Suggest, "suggest", k("ctrl+y"), "ctrl+y", "suggestion", "start the synthesis from the suggested merge of both units, choosing the synthesis strategy (asks before replacing typed text)", Form},
		{&m.Synthesize, "synthesize", k("="), "=", "synthesize", "open the decision form on the synthesis strategy, started from the suggested merge", InQueue | InConflict},
		{&m.TakeA, "take_a", k("alt+a"), "alt+a", "take A", "settle the synthesis's next alternative with A's text", Form},
		{&m.TakeB, "take_b", k("alt+b"), "alt+b", "take B", "settle the synthesis's next alternative with B's text", Form},
	}, {
		{&m.Confirm, "confirm", k("y", "Y"), "y", "yes", "write what the form asks about; any other key goes back", InConfirm},
		{&m.Cancel, "cancel", k("n"), "n", "no", "go back without writing (any key but confirm does)", InConfirm},
		{&m.Back, "back", k("esc"), "esc", "back", "go back: clear the filter or the marks, leave a conflict, the inbox, a form, a prompt, a preview or the help", InQueue | InFilter | InInbox | InConflict | Form | InPrompt | InHelp},
		{&m.Help, "help", k("?", "f1"), "?", "help", "show the keys of the screen in front, then every other; again to close it (f1 where ? is text)", Everywhere},
		{&m.Quit, "quit", k("q"), "q", "quit", "quit arbiter (from the help: close it)", InQueue | InInbox | InConflict | InHelp},
		{&m.ForceQuit, "force_quit", k("ctrl+c"), "ctrl+c", "quit", "quit arbiter, whatever is on screen", Everywhere},
	}}
}

// rows is the table in order.
func (m *Map) rows() []row { return slices.Concat(m.columns()...) }

// Default is the bindings before any rebinding.
func Default() Map {
	var m Map
	for _, r := range m.rows() {
		*r.b = key.NewBinding(key.WithKeys(r.keys...), key.WithHelp(r.help, r.desc))
	}
	m.built = true
	return m
}

// New is the default bindings with overrides applied: binding name → its
// new keys, which replace the default ones. Names are matched ignoring
// case, '_' and '-' (page_down, PageDown and page-down are one). An
// unknown name, a name given twice, an empty list of keys, or a key that
// two bindings acting on the same screen share is an error.
func New(overrides map[string][]string) (Map, error) {
	m := Default()
	byName := map[string]row{}
	for _, r := range m.rows() {
		byName[normal(r.name)] = r
	}
	names := make([]string, 0, len(overrides))
	for name := range overrides {
		names = append(names, name)
	}
	slices.Sort(names)
	given := map[string]string{}
	var unknown, problems []string
	for _, name := range names {
		keys := overrides[name]
		r, ok := byName[normal(name)]
		switch {
		case !ok:
			unknown = append(unknown, fmt.Sprintf("%q", name))
			continue
		case given[r.name] != "":
			problems = append(problems, fmt.Sprintf("%s is given twice, as %s and %s", r.name, given[r.name], name))
			continue
		case len(keys) == 0 || slices.Contains(keys, ""):
			problems = append(problems, fmt.Sprintf("%s: no key given", name))
			continue
		}
		given[r.name] = name
		r.b.SetKeys(keys...)
		r.b.SetHelp(strings.Join(keys, "/"), r.desc)
	}
	if len(unknown) > 0 {
		s := "unknown binding "
		if len(unknown) > 1 {
			s = "unknown bindings "
		}
		problems = append([]string{s + strings.Join(unknown, ", ") + " (the bindings are " + strings.Join(Names(), ", ") + ")"}, problems...)
	}
	if len(problems) == 0 {
		problems = m.collisions()
	}
	if len(problems) > 0 {
		return Map{}, errors.New(strings.Join(problems, "; "))
	}
	return m, nil
}

// collisions lists every key that two bindings acting in the same place
// share: one of them would never be reached.
func (m *Map) collisions() []string {
	var out []string
	rows := m.rows()
	for i, a := range rows {
		for _, b := range rows[i+1:] {
			both := a.in & b.in
			if both == 0 {
				continue
			}
			for _, k := range a.b.Keys() {
				if slices.Contains(b.b.Keys(), k) {
					out = append(out, fmt.Sprintf("%q is bound to both %s and %s, which both act in %s", k, a.name, b.name, both))
				}
			}
		}
	}
	return out
}

// normal is a binding name as New compares it.
func normal(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(strings.TrimSpace(name)))
}

// Names lists the binding names, in the table's order.
func Names() []string {
	var m Map
	var out []string
	for _, r := range m.rows() {
		out = append(out, r.name)
	}
	return out
}

// IsZero reports whether m was never built (by Default or New): a zero
// Map binds nothing.
func (m Map) IsZero() bool { return !m.built }

// FullHelp is every binding, in the help screen's columns.
func (m *Map) FullHelp() [][]key.Binding {
	var out [][]key.Binding
	for _, col := range m.columns() {
		bs := make([]key.Binding, len(col))
		for i, r := range col {
			bs[i] = *r.b
		}
		out = append(out, bs)
	}
	return out
}

// Entry describes one binding, for documentation.
type Entry struct {
	Name    string
	Binding key.Binding
	Doc     string
	In      Context
}

// Entries lists m's bindings in the table's order.
func (m Map) Entries() []Entry {
	var out []Entry
	for _, r := range m.rows() {
		out = append(out, Entry{Name: r.name, Binding: *r.b, Doc: r.doc, In: r.in})
	}
	return out
}

// Markdown is the table of bindings with their default keys, as the
// README lists them.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| binding | default keys | what it does | where |\n|---|---|---|---|\n")
	for _, e := range Default().Entries() {
		keys := make([]string, len(e.Binding.Keys()))
		for i, k := range e.Binding.Keys() {
			keys[i] = "`" + k + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Name, strings.Join(keys, " "), e.Doc, e.In)
	}
	return b.String()
}
