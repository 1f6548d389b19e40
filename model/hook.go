package model

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// HookFormat names a hook's channel: how its deliveries are written and
// sent (standard, slack: the channels of service/deliver, each in a file
// of its own).
type HookFormat string

// EventHookDisabled is the notice that a hook was disabled because its
// receiver answered 410 Gone: to the human operators and to the hook's
// person.
const EventHookDisabled = "hook.disabled"

// NoticeEvents are the events notices are sent for: what a hook's
// --events may name.
var NoticeEvents = []string{EventConflictDetected, EventConflictResolved, EventConflictEscalated, EventVoteOpened,
	EventVoteClosed, EventConflictReopened, EventConflictRework, EventConflictReminder, EventConflictOverdue,
	EventConflictTimeout, EventPolicyChanged, EventNotWritten, EventHookDisabled}

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
	// AllowPrivate lets deliveries reach a loopback, private or other
	// special-purpose address (hooks add --allow-private); without it the
	// deliverer refuses to connect to one, whatever the host resolves to.
	AllowPrivate bool `json:"allow_private"`
	// DisabledAt is when the hook was disabled (its receiver answered
	// 410 Gone), nil while it is enabled; DisabledWhy says why. A disabled
	// hook is sent nothing and queues nothing until a human operator
	// enables it again.
	DisabledAt  *time.Time `json:"disabled_at,omitempty"`
	DisabledWhy string     `json:"disabled_why,omitempty"`
}

// Enabled reports whether the hook is sent its notices.
func (h Hook) Enabled() bool { return h.DisabledAt == nil }

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
	// DeliveryDead was given up: refused (a 4xx other than 408 and 429),
	// failing after the last try, or its hook disabled. `deliveries
	// retry` queues it again.
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
	// ClaimedUntil is when the claim a deliverer holds on a pending
	// delivery runs out, if one does: until then no other deliverer sends
	// it. Claim is the claim's token (set by DeliveryClaim): a try is
	// recorded only over the claim it was sent under.
	ClaimedUntil *time.Time `json:"claimed_until,omitempty"`
	Claim        string     `json:"-"`
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
