package deliver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// FormatSlack is a Slack incoming-webhook message (its URL's path is its
// secret; nothing is signed).
const FormatSlack model.HookFormat = "slack"

type slack struct{}

func (slack) Format() model.HookFormat { return FormatSlack }

func (slack) Describe() string {
	return "a Slack incoming-webhook message: what waits, for whom, by when, and the line that opens it"
}

func (slack) Accept(*url.URL) error { return nil }

func (slack) Request(m Message) ([]byte, http.Header, error) {
	var w *Waiting
	if m.Waiting != nil {
		w = m.Waiting()
	}
	return SlackBody(m.Delivery.Notice, w, m.Open, m.At), nil, nil
}

// SlackBody is a Slack incoming-webhook message a person reads on a
// phone: what waits, for whom, by when, the notice, and the one line that
// opens it (open is the command that runs arbiter on the field, e.g.
// "ssh ops@arbiter.example -t arbiter" or "arbiter --db /srv/team.db").
func SlackBody(n model.Notification, w *Waiting, open string, now time.Time) []byte {
	head := "arbiter: " + slackText(n.Event)
	if n.ConflictID != nil {
		c := slackText(*n.ConflictID)
		switch {
		case n.RequiresAction && w != nil && w.Status.Routed():
			who := "any human operator"
			if w.Owner != "" {
				who = slackText(w.Owner)
			}
			head = fmt.Sprintf("%s waits for %s", c, who)
			if w.Deadline != nil {
				head += fmt.Sprintf(" — due %s (%s)", w.Deadline.UTC().Format("2006-01-02 15:04 UTC"), dueIn(*w.Deadline, now))
			}
		case n.RequiresAction:
			head = c + " asks something of you"
		default:
			head = c + ": " + slackText(n.Event)
		}
	}
	open = strings.TrimSpace(open)
	if open == "" {
		open = "arbiter"
	}
	command := open + " --as " + n.AgentID
	if n.ConflictID != nil {
		command += " show " + *n.ConflictID
	} else {
		command += " inbox"
	}
	summary := slackCut(slackText(n.Summary), slackMax-len(head)-8)
	b, _ := json.Marshal(map[string]any{
		"text": head + " — " + summary,
		"blocks": []any{
			map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn",
				"text": "*" + head + "*\n" + summary}},
			map[string]any{"type": "context", "elements": []any{
				map[string]any{"type": "mrkdwn", "text": "for " + slackText(n.AgentID) + " · open it: `" + slackText(safetext.Line(command)) + "`"},
			}},
		},
	})
	return b
}

// slackMax is the most characters a Slack section's text may hold: a
// longer one is refused (notices carry their rationale whole).
const slackMax = 3000

// slackCut cuts s to at most n characters, at a space, saying so; the
// command the message ends with opens the whole notice.
func slackCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:max(0, n-len(" … (cut)"))])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return cut + " … (cut)"
}

// slackText is untrusted text made safe for a Slack message: one line,
// no control characters, and &, < and > escaped as Slack asks.
func slackText(s string) string {
	s = safetext.Line(s)
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func dueIn(deadline, now time.Time) string {
	d := deadline.Sub(now)
	if d <= 0 {
		return "overdue"
	}
	return "in " + model.ShortDuration(d)
}
