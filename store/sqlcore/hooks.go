package sqlcore

import (
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Hooks and their deliveries (docs/notifications.md); the claims on
// deliveries are in claims.go.

const hookCols = `h.id, h.agent_id, h.url, h.format, h.events, h.secret, h.created_by, h.created_at,
	h.allow_private, h.disabled_at, h.disabled_why`

// deliverySelect reads a delivery with its hook and notice (scanDelivery).
const deliverySelect = `SELECT d.id, d.hook_id, d.notification_id, d.state, d.attempts, d.next_at, d.last_error,
	d.created_at, d.delivered_at, coalesce(d.claimed_by, ''), d.claimed_until, ` + hookCols + `, n.agent_id, n.event,
	n.epoch, n.summary, n.unit_id, n.conflict_id, n.requires_action, n.created_at
	FROM deliveries d JOIN hooks h ON h.id = d.hook_id JOIN notifications n ON n.id = d.notification_id`

// HookInsert stores h, whose id is set.
func (t *Tx) HookInsert(h model.Hook) error {
	return t.exec(`INSERT INTO hooks (id, agent_id, url, format, events, secret, created_by, created_at, allow_private)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, h.ID, h.AgentID, h.URL, string(h.Format), strings.Join(h.Events, ","),
		h.Secret, h.CreatedBy, h.CreatedAt, h.AllowPrivate)
}

// scanHook reads hookCols into h, then more.
func scanHook(r Row, h *model.Hook, more ...any) error {
	var format, events string
	var at, disabled Time
	if err := r.Scan(append([]any{&h.ID, &h.AgentID, &h.URL, &format, &events, &h.Secret, &h.CreatedBy, &at,
		&h.AllowPrivate, &disabled, &h.DisabledWhy}, more...)...); err != nil {
		return err
	}
	h.Format, h.Events, h.CreatedAt, h.DisabledAt = model.HookFormat(format), []string{}, at.T, disabled.Ptr()
	if events != "" {
		h.Events = strings.Split(events, ",")
	}
	return nil
}

// Hooks lists the hooks for agentID ("" for all), oldest first.
func (t *Tx) Hooks(agentID string) ([]model.Hook, error) {
	return Collect(t.E, `SELECT `+hookCols+` FROM hooks h WHERE $1 = '' OR h.agent_id = $1 ORDER BY h.created_at, h.id`,
		[]any{agentID}, func(r Row) (model.Hook, error) {
			var h model.Hook
			return h, scanHook(r, &h)
		})
}

// HookDelete removes hook id and its deliveries.
func (t *Tx) HookDelete(id string) error {
	if err := t.exec(`DELETE FROM deliveries WHERE hook_id = $1`, id); err != nil {
		return err
	}
	n, err := t.E.Exec(`DELETE FROM hooks WHERE id = $1`, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// HookDisable disables hook id at at, for why, and gives up its pending
// deliveries; ErrStale if it is disabled already.
func (t *Tx) HookDisable(id, why string, at time.Time) (int, error) {
	var disabled Time
	if err := QueryRow(t.E, `SELECT disabled_at FROM hooks WHERE id = $1`+t.E.Lock(), id).Scan(&disabled); err != nil {
		return 0, err
	}
	if disabled.Valid {
		return 0, store.ErrStale
	}
	if err := t.exec(`UPDATE hooks SET disabled_at = $1, disabled_why = $2 WHERE id = $3`, at, why, id); err != nil {
		return 0, err
	}
	n, err := t.E.Exec(`UPDATE deliveries SET state = 'dead', last_error = $1, claimed_by = NULL, claimed_until = NULL
		WHERE hook_id = $2 AND state = 'pending'`, why, id)
	return int(n), err
}

// HookEnable enables hook id again.
func (t *Tx) HookEnable(id string) error {
	n, err := t.E.Exec(`UPDATE hooks SET disabled_at = NULL, disabled_why = '' WHERE id = $1`, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// DeliveryInsert queues d as pending, with its notice's conflict, which
// orders it.
func (t *Tx) DeliveryInsert(d model.Delivery) error {
	return t.E.Later(`INSERT INTO deliveries (id, hook_id, notification_id, state, attempts, next_at, created_at, conflict_id)
		VALUES ($1, $2, $3, 'pending', 0, $4, $5, $6)`,
		[]any{d.ID, d.HookID, d.NotificationID, d.NextAt, d.CreatedAt, d.Notice.ConflictID}, nil)
}

// scanDelivery reads deliverySelect's columns.
func scanDelivery(r Row) (model.Delivery, error) {
	var d model.Delivery
	var state, claim string
	var next, created, delivered, claimedUntil, noticeAt Time
	var unit, conflict Text
	n := &d.Notice
	err := scanHook(rowAfter{r, []any{&d.ID, &d.HookID, &d.NotificationID, &state, &d.Attempts, &next, &d.LastError,
		&created, &delivered, &claim, &claimedUntil}}, &d.Hook,
		&n.AgentID, &n.Event, &n.Epoch, &n.Summary, &unit, &conflict, &n.RequiresAction, &noticeAt)
	d.State, d.NextAt, d.CreatedAt, d.DeliveredAt = model.DeliveryState(state), next.T, created.T, delivered.Ptr()
	if claimedUntil.Valid && d.State == model.DeliveryPending {
		d.ClaimedUntil, d.Claim = claimedUntil.Ptr(), claim
	}
	n.ID, n.MemoryUnitID, n.ConflictID, n.CreatedAt = d.NotificationID, unit.Ptr(), conflict.Ptr(), noticeAt.T
	return d, err
}

func (t *Tx) deliveries(where string, args ...any) ([]model.Delivery, error) {
	return Collect(t.E, deliverySelect+" "+where, args, scanDelivery)
}

// Deliveries lists deliveries, newest first.
func (t *Tx) Deliveries(q model.DeliveryQuery) ([]model.Delivery, error) {
	where, args := "", []any{}
	if q.State != "" {
		where, args = "WHERE d.state = $1", append(args, string(q.State))
	}
	where += " ORDER BY d.created_at DESC, d.id DESC"
	if q.Limit > 0 {
		where += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return t.deliveries(where, args...)
}

// DeliveryRetry queues dead deliveries again.
func (t *Tx) DeliveryRetry(id string, now time.Time) (int, error) {
	n, err := t.E.Exec(`UPDATE deliveries SET state = 'pending', attempts = 0, next_at = $1, claimed_by = NULL,
		claimed_until = NULL WHERE state = 'dead' AND ($2 = '' OR id = $2)`, now, id)
	if err != nil {
		return 0, err
	}
	if n == 0 && id != "" {
		return 0, store.ErrNotFound
	}
	return int(n), nil
}
