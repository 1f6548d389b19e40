package keymap

import "strings"

// Context is a set of places of the screen. Two bindings may share a key
// only if they never act in the same place.
type Context uint16

// The places of the screen a key press can reach.
const (
	InQueue    Context = 1 << iota // the list of conflicts
	InFilter                       // typing the queue's filter
	InConflict                     // a conflict, both units side by side
	InStrategy                     // a decision form, on its strategies
	InWinner                       // a form, on the choice between A and B
	InText                         // a form, in a text box
	InConfirm                      // a form asking whether to write
	InBusy                         // a form being written
	InPrompt                       // the one-line prompt of a quick decision
	InHelp                         // the help screen
	InInbox                        // the inbox: the person's notices

	// Form is anywhere a form is being filled in.
	Form = InStrategy | InWinner | InText
	// Everywhere is every place.
	Everywhere = InInbox<<1 - 1
)

var contextNames = []string{"the queue", "the queue's filter", "a conflict", "a form's strategies",
	"a form's choice of A or B", "a form's text boxes", "a confirmation", "a form being written",
	"the quick decision's prompt", "the help screen", "the inbox"}

// String names the places of c, for people.
func (c Context) String() string {
	if c == Everywhere {
		return "everywhere"
	}
	full := c&Form == Form
	var names []string
	for i, name := range contextNames {
		bit := Context(1) << i
		switch {
		case c&bit == 0:
		case full && bit == InStrategy:
			names = append(names, "forms")
		case full && bit&Form != 0:
		default:
			names = append(names, name)
		}
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}
