package deliver

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// Notice is the data of a standard delivery's body: the notice as the
// agent's inbox holds it, and the field it comes from.
type Notice struct {
	ID             int64     `json:"notice_id"`
	For            string    `json:"for"`
	Event          string    `json:"event"`
	Epoch          int64     `json:"epoch"`
	Summary        string    `json:"summary"`
	ConflictID     *string   `json:"conflict_id"`
	UnitID         *string   `json:"unit_id"`
	RequiresAction bool      `json:"requires_action"`
	CreatedAt      time.Time `json:"created_at"`
	Field          string    `json:"field,omitempty"`
}

// StandardBody is the JSON body of a standard delivery, as the Standard
// Webhooks specification suggests: {type, timestamp, data}. It depends
// only on the notice, so every try of a delivery sends the same body.
func StandardBody(n model.Notification, field string) []byte {
	b, _ := json.Marshal(struct {
		Type      string    `json:"type"`
		Timestamp time.Time `json:"timestamp"`
		Data      Notice    `json:"data"`
	}{n.Event, n.CreatedAt.UTC(), Notice{ID: n.ID, For: n.AgentID, Event: n.Event, Epoch: n.Epoch, Summary: n.Summary,
		ConflictID: n.ConflictID, UnitID: n.MemoryUnitID, RequiresAction: n.RequiresAction, CreatedAt: n.CreatedAt.UTC(), Field: field}})
	return b
}

// Waiting is what a slack message says of the conflict a notice is about,
// read when it is sent: who it waits for and until when.
type Waiting struct {
	Status   model.ConflictStatus
	Owner    string     // "" for any human operator
	Deadline *time.Time // nil for none
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
