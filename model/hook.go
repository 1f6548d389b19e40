package model

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// HookFormat is how a hook's deliveries are written.
type HookFormat string

const (
	// FormatStandard follows the Standard Webhooks specification: signed
	// headers and a JSON body with the notice.
	FormatStandard HookFormat = "standard"
	// FormatSlack is a Slack incoming-webhook body.
	FormatSlack HookFormat = "slack"
)

// NoticeEvents are the events notices are sent for: what a hook's
// --events may name.
var NoticeEvents = []string{EventConflictDetected, EventConflictResolved, EventConflictEscalated, EventVoteOpened,
	EventVoteClosed, EventConflictReopened, EventConflictRework, EventConflictReminder, EventConflictOverdue,
	EventConflictTimeout, EventPolicyChanged, EventNotWritten}

// Valid reports whether f is a known format.
func (f HookFormat) Valid() bool { return f == FormatStandard || f == FormatSlack }

// Hook delivers every notice to one agent or person to a URL.
type Hook struct {
	ID      string     `json:"id"`
	AgentID string     `json:"for"`
	URL     string     `json:"url"`
	Format  HookFormat `json:"format"`
	// Events limits the notices delivered to these events (empty: all).
	Events []string `json:"events"`
	// Secret signs the deliveries (whsec_ and base64); never shown whole.
	Secret    string    `json:"-"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
}

// Wants reports whether the hook delivers a notice of event.
func (h Hook) Wants(event string) bool {
	return len(h.Events) == 0 || slices.Contains(h.Events, event)
}

// SecretPrefix is what may be shown of a secret: its first characters.
func SecretPrefix(secret string) string {
	const shown = len("whsec_") + 4
	if len(secret) <= shown {
		return strings.Repeat("*", len(secret))
	}
	return secret[:shown] + "…"
}

// DeliveryState is where a delivery stands.
type DeliveryState string

const (
	// DeliveryPending waits to be sent (again) at NextAt.
	DeliveryPending DeliveryState = "pending"
	// DeliveryDelivered was answered with a 2xx.
	DeliveryDelivered DeliveryState = "delivered"
	// DeliveryDead was given up: refused (a 4xx other than 408 and 429)
	// or failing after the last try. `deliveries retry` queues it again.
	DeliveryDead DeliveryState = "dead"
)

// Delivery is one notice on its way to one hook: a row of the field's
// outbox, written in the notice's transaction.
type Delivery struct {
	// ID is the webhook-id the receiver sees: the same on every try.
	ID             string        `json:"id"`
	HookID         string        `json:"hook_id"`
	NotificationID int64         `json:"notification_id"`
	State          DeliveryState `json:"state"`
	Attempts       int           `json:"attempts"`
	NextAt         time.Time     `json:"next_at"`
	LastError      string        `json:"last_error,omitempty"`
	CreatedAt      time.Time     `json:"created_at"`
	DeliveredAt    *time.Time    `json:"delivered_at,omitempty"`
	// Hook and Notice are read with the delivery when it is claimed or
	// listed.
	Hook   Hook         `json:"-"`
	Notice Notification `json:"notice"`
}

// DeliveryQuery selects deliveries to list.
type DeliveryQuery struct {
	State DeliveryState // "": all
	Limit int           // 0: no limit
}

// NewDeliveryID returns a fresh delivery id, "msg_" and 24 random hex
// digits: the webhook-id a receiver deduplicates on.
func NewDeliveryID() string { return "msg_" + randomHex(12) }

// NewHookID returns a fresh hook id, "hook-" and 8 random hex digits.
func NewHookID() string { return "hook-" + randomHex(4) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
