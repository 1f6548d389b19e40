package deliver

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"arbiter/model"
)

// Channel is a kind of hook (hooks add --format): what a delivery's
// request carries, how it is signed, and what the channel accepts when a
// hook is added. Each channel is a file of this package, listed once in
// channels; nothing else names it.
type Channel interface {
	// Format is the channel's name: what --format takes and the field
	// stores.
	Format() model.HookFormat
	// Describe says in a few words what a receiver gets, for hooks add
	// --help.
	Describe() string
	// Accept refuses a URL the channel cannot send to, beyond what every
	// hook's URL is checked for (CheckHook); nil if it can.
	Accept(u *url.URL) error
	// Request is one try's body, and the headers that go with it beyond
	// Content-Type (application/json) and User-Agent: a signature, say.
	Request(m Message) (body []byte, header http.Header, err error)
}

// Message is what a channel writes one try of a delivery from.
type Message struct {
	Delivery model.Delivery
	// Field is the field's name (a path, or a server and schema).
	Field string
	// Open is the command that opens the field (deliver --open).
	Open string
	// At is the try's time.
	At time.Time
	// Waiting reads what the field says now of the notice's conflict —
	// who it waits for, until when — or nil (no conflict, or it cannot
	// be read). Only a channel that shows it calls it.
	Waiting func() *Waiting
}

// Waiting is what the field says of the conflict a notice is about,
// read when it is sent: who it waits for and until when.
type Waiting struct {
	Status   model.ConflictStatus
	Owner    string     // "" for any human operator
	Deadline *time.Time // nil for none
}

// channels are the channels hooks can be added with: the first is the
// default.
var channels = []Channel{standard{}, slack{}}

// ChannelOf returns the channel named format.
func ChannelOf(format model.HookFormat) (Channel, bool) {
	for _, c := range channels {
		if c.Format() == format {
			return c, true
		}
	}
	return nil, false
}

// Channels lists the channels, the default first.
func Channels() []Channel { return append([]Channel(nil), channels...) }

// FormatNames is the channels' names, as "standard or slack".
func FormatNames() string {
	names := make([]string, len(channels))
	for i, c := range channels {
		names[i] = string(c.Format())
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
