package keymap

import (
	"flag"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

var readme = flag.Bool("readme", false, "rewrite the README's list of bindings from the table")

func TestEveryBindingIsInTheTableOnce(t *testing.T) {
	var m Map
	rows := m.rows()
	v := reflect.ValueOf(&m).Elem()
	bindings := 0
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Type() != reflect.TypeFor[key.Binding]() {
			continue
		}
		bindings++
		p := f.Addr().Interface().(*key.Binding)
		n := 0
		for _, r := range rows {
			if r.b == p {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Map.%s is in the table %d times, want once", v.Type().Field(i).Name, n)
		}
	}
	if bindings != len(rows) {
		t.Errorf("the table has %d rows for %d bindings", len(rows), bindings)
	}
	names := Names()
	for i, name := range names {
		if slices.Contains(names[i+1:], name) || name != strings.ToLower(name) || strings.Contains(name, "-") {
			t.Errorf("binding name %q: want it unique and snake_case", name)
		}
	}
}

func TestDefaultsBindEveryBindingWithoutCollisions(t *testing.T) {
	m, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Entries() {
		if len(e.Binding.Keys()) == 0 || e.Binding.Help().Key == "" || e.Binding.Help().Desc == "" || e.Doc == "" || e.In == 0 {
			t.Errorf("%s is missing keys, help, doc or places: %+v", e.Name, e)
		}
	}
}

func TestNamesMatchWhateverTheirCaseAndSeparators(t *testing.T) {
	m, err := New(map[string][]string{"PageDown": {"x"}, "all-statuses": {"Z"}, "force_quit": {"ctrl+q"}, "Next": {"ctrl+n"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]key.Binding{"x": m.PageDown, "Z": m.AllStatuses, "ctrl+q": m.ForceQuit, "ctrl+n": m.Next} {
		if !slices.Equal(b.Keys(), []string{name}) {
			t.Errorf("keys = %v, want [%s]", b.Keys(), name)
		}
	}
}

func TestRebindingShowsTheNewKeysInTheHelp(t *testing.T) {
	m, err := New(map[string][]string{"back": {"ctrl+b", "backspace"}})
	if err != nil {
		t.Fatal(err)
	}
	if h := m.Back.Help(); h.Key != "ctrl+b/backspace" || h.Desc != "back" {
		t.Errorf("help = %+v, want ctrl+b/backspace back", h)
	}
	found := false
	for _, col := range m.FullHelp() {
		for _, b := range col {
			found = found || b.Help().Key == "ctrl+b/backspace"
		}
	}
	if !found {
		t.Error("the help screen's columns do not show the new keys")
	}
}

func TestUnknownNameIsAnErrorListingEveryName(t *testing.T) {
	_, err := New(map[string][]string{"bogus_action": {"x"}, "yes": {"y"}})
	if err == nil {
		t.Fatal("unknown names were accepted")
	}
	for _, want := range append([]string{`"bogus_action"`, `"yes"`}, Names()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to name %s", err, want)
		}
	}
}

func TestKeySharedInOnePlaceIsAnErrorNamingBoth(t *testing.T) {
	_, err := New(map[string][]string{"open": {"space"}})
	if err == nil || !strings.Contains(err.Error(), `"space" is bound to both open and mark`) {
		t.Fatalf("err = %v, want space named with open and mark", err)
	}
	_, err = New(map[string][]string{"submit": {"a"}})
	if err == nil || !strings.Contains(err.Error(), "choose_a") || !strings.Contains(err.Error(), "submit") {
		t.Fatalf("err = %v, want a named with choose_a and submit", err)
	}
}

func TestBindingsOfDifferentPlacesMayShareAKey(t *testing.T) {
	for _, o := range []map[string][]string{
		{"next_pane": {"tab"}, "next": {"tab"}},         // a conflict; a form
		{"history": {"x"}, "choose_a": {"x"}},           // a conflict; a form's choice
		{"confirm": {"q"}, "cancel": {"esc"}},           // a confirmation only
		{"keep_filter": {"ctrl+k"}, "open": {"ctrl+k"}}, // the filter; the queue
	} {
		if _, err := New(o); err != nil {
			t.Errorf("%v: %v", o, err)
		}
	}
}

func TestEmptyOrRepeatedRebindingIsAnError(t *testing.T) {
	for _, o := range []map[string][]string{
		{"open": nil}, {"open": {}}, {"open": {""}}, {"page_down": {"x"}, "PageDown": {"y"}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%v was accepted", o)
		}
	}
}

// The README's list of bindings sits between these lines.
const (
	readmeStart = "<!-- bindings: the table in internal/keymap; go test ./internal/keymap -readme rewrites it -->\n"
	readmeEnd   = "<!-- end of bindings -->\n"
)

func TestReadmeListsEveryBindingAsTheTableHasIt(t *testing.T) {
	const path = "../../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start, end := strings.Index(text, readmeStart), strings.Index(text, readmeEnd)
	if start < 0 || end < start {
		t.Fatalf("README.md has no list of bindings between %q and %q", readmeStart, readmeEnd)
	}
	start += len(readmeStart)
	want := Markdown()
	if *readme {
		if err := os.WriteFile(path, []byte(text[:start]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := text[start:end]; got != want {
		t.Errorf("README.md's bindings differ from the table (go test ./internal/keymap -readme rewrites them)\n--- README\n%s\n--- table\n%s", got, want)
	}
}

// The help's sections list every binding under each place it acts in,
// the place asked for first, and those acting everywhere once, last.
func TestSectionsListEveryBindingUnderEachPlaceItActsIn(t *testing.T) {
	m := Default()
	for _, first := range []Context{InQueue, InConflict, InWinner, InPrompt, InHelp} {
		secs := m.Sections(first)
		if secs[0].In&first == 0 {
			t.Errorf("Sections(%s) starts with %q", first, secs[0].Title)
		}
		if last := secs[len(secs)-1]; last.Title != "Everywhere" || len(last.Entries) != 2 ||
			last.Entries[0].Name != "help" || last.Entries[1].Name != "force_quit" {
			t.Errorf("Sections(%s) ends with %q %+v, want Everywhere: help, force_quit", first, last.Title, last.Entries)
		}
		for _, e := range m.Entries() {
			if e.In == Everywhere {
				continue
			}
			for i := range contextNames {
				bit := Context(1) << i
				if e.In&bit == 0 {
					continue
				}
				found := false
				for _, s := range secs {
					for _, se := range s.Entries {
						found = found || (s.In&bit != 0 && se.Name == e.Name)
					}
				}
				if !found {
					t.Errorf("%s acts in %s but no section of that place lists it", e.Name, bit)
				}
			}
		}
	}
	var forms Section
	for _, s := range m.Sections(InQueue) {
		if s.In == Form {
			forms = s
		}
	}
	for _, se := range forms.Entries {
		if se.Name == "choose_a" && se.Where != "a form's choice of A or B" {
			t.Errorf("choose_a in the forms' section says where %q", se.Where)
		}
		if se.Name == "submit" && se.Where != "" {
			t.Errorf("submit acts in every part of a form, yet says where %q", se.Where)
		}
	}
}
