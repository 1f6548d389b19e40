package sqlcore

import (
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Hooks and their deliveries (docs/notifications.md).

const hookCols = `h.id, h.agent_id, h.url, h.format, h.events, h.secret, h.created_by, h.created_at`

// deliverySelect reads a delivery with its hook and notice (scanDelivery).
const deliverySelect = `SELECT d.id, d.hook_id, d.notification_id, d.state, d.attempts, d.next_at, d.last_error,
	d.created_at, d.delivered_at, ` + hookCols + `, n.agent_id, n.event, n.epoch, n.summary, n.unit_id, n.conflict_id,
	n.requires_action, n.created_at
	FROM deliveries d JOIN hooks h ON h.id = d.hook_id JOIN notifications n ON n.id = d.notification_id`

// HookInsert stores h, whose id is set.
func (t *Tx) HookInsert(h model.Hook) error {
	return t.exec(`INSERT INTO hooks (id, agent_id, url, format, events, secret, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, h.ID, h.AgentID, h.URL, string(h.Format), strings.Join(h.Events, ","),
		h.Secret, h.CreatedBy, h.CreatedAt)
}

// scanHook reads hookCols into h, then more.
func scanHook(r Row, h *model.Hook, more ...any) error {
	var format, events string
	var at Time
	if err := r.Scan(append([]any{&h.ID, &h.AgentID, &h.URL, &format, &events, &h.Secret, &h.CreatedBy, &at}, more...)...); err != nil {
		return err
	}
	h.Format, h.Events, h.CreatedAt = model.HookFormat(format), []string{}, at.T
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

// DeliveryInsert queues d as pending.
func (t *Tx) DeliveryInsert(d model.Delivery) error {
	return t.E.Later(`INSERT INTO deliveries (id, hook_id, notification_id, state, attempts, next_at, created_at)
		VALUES ($1, $2, $3, 'pending', 0, $4, $5)`, []any{d.ID, d.HookID, d.NotificationID, d.NextAt, d.CreatedAt}, nil)
}

// scanDelivery reads deliverySelect's columns.
func scanDelivery(r Row) (model.Delivery, error) {
	var d model.Delivery
	var state string
	var next, created, delivered, noticeAt Time
	var unit, conflict Text
	n := &d.Notice
	err := scanHook(rowAfter{r, []any{&d.ID, &d.HookID, &d.NotificationID, &state, &d.Attempts, &next, &d.LastError,
		&created, &delivered}}, &d.Hook,
		&n.AgentID, &n.Event, &n.Epoch, &n.Summary, &unit, &conflict, &n.RequiresAction, &noticeAt)
	d.State, d.NextAt, d.CreatedAt, d.DeliveredAt = model.DeliveryState(state), next.T, created.T, delivered.Ptr()
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

// DeliveryClaim claims for worker up to limit deliveries due at now that
// no claim holds. On PostgreSQL the rows another transaction is claiming
// are skipped (FOR UPDATE SKIP LOCKED); on SQLite a write holds the whole
// file. Either way concurrent workers never get the same delivery.
func (t *Tx) DeliveryClaim(worker string, now time.Time, lease time.Duration, limit int) ([]model.Delivery, error) {
	ids, err := Collect(t.E, t.D.claim, []any{worker, now.Add(lease), now, limit}, func(r Row) (any, error) { return text(r) })
	if err != nil || len(ids) == 0 {
		return []model.Delivery{}, err
	}
	return t.deliveries(`WHERE d.id IN (`+Places(1, len(ids))+`) ORDER BY d.next_at, d.id`, ids...)
}

// DeliveryRecord records worker's try of d and releases the claim.
func (t *Tx) DeliveryRecord(d model.Delivery, worker string) error {
	n, err := t.E.Exec(`UPDATE deliveries SET state = $1, attempts = $2, next_at = $3, last_error = $4, delivered_at = $5,
		claimed_by = NULL, claimed_until = NULL WHERE id = $6 AND claimed_by = $7 AND state = 'pending'`,
		string(d.State), d.Attempts, d.NextAt, d.LastError, d.DeliveredAt, d.ID, worker)
	if err == nil && n == 0 {
		err = store.ErrStale
	}
	return err
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

// DeliveryNext is when the earliest pending delivery may be claimed.
func (t *Tx) DeliveryNext() (*time.Time, error) {
	var at Time
	err := QueryRow(t.E, `SELECT min(CASE WHEN claimed_until > next_at THEN claimed_until ELSE next_at END)
		FROM deliveries WHERE state = 'pending'`).Scan(&at)
	return at.Ptr(), err
}
