package deliver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"arbiter/model"
)

// FormatStandard follows the Standard Webhooks specification: signed
// webhook-id, webhook-timestamp and webhook-signature headers and a JSON
// body with the notice (sign.go).
const FormatStandard model.HookFormat = "standard"

type standard struct{}

func (standard) Format() model.HookFormat { return FormatStandard }

func (standard) Describe() string {
	return "Standard Webhooks: signed webhook-id, webhook-timestamp and webhook-signature headers, a JSON body"
}

func (standard) Accept(*url.URL) error { return nil }

func (standard) Request(m Message) ([]byte, http.Header, error) {
	body := StandardBody(m.Delivery.Notice, m.Field)
	sig, err := Sign(m.Delivery.Hook.Secret, m.Delivery.ID, m.At, body)
	if err != nil {
		return nil, nil, err
	}
	h := http.Header{}
	h.Set("webhook-id", m.Delivery.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(m.At.Unix(), 10))
	h.Set("webhook-signature", sig)
	return body, h, nil
}

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
