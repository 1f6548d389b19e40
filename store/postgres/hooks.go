package postgres

import (
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// HookInsert stores h, whose id is set.
func (t *Tx) HookInsert(h model.Hook) error {
	_, err := t.exec(`INSERT INTO hooks (id, agent_id, url, format, events, secret, created_by, created_at, allow_private)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, h.ID, h.AgentID, h.URL, string(h.Format), strings.Join(h.Events, ","),
		h.Secret, h.CreatedBy, h.CreatedAt, h.AllowPrivate)
	return err
}

const hookCols = `h.id, h.agent_id, h.url, h.format, h.events, h.secret, h.created_by, h.created_at,
	h.allow_private, h.disabled_at, h.disabled_why`

// hookScan reads hookCols into a hook.
type hookScan struct{ format, events string }

func (s *hookScan) dest(h *model.Hook) []any {
	return []any{&h.ID, &h.AgentID, &h.URL, &s.format, &s.events, &h.Secret, &h.CreatedBy, &h.CreatedAt,
		&h.AllowPrivate, &h.DisabledAt, &h.DisabledWhy}
}

func (s *hookScan) finish(h *model.Hook) {
	h.Format, h.Events, h.CreatedAt = model.HookFormat(s.format), splitEvents(s.events), h.CreatedAt.UTC()
	if h.DisabledAt != nil {
		at := h.DisabledAt.UTC()
		h.DisabledAt = &at
	}
}

// Hooks lists the hooks for agentID ("" for all), oldest first.
func (t *Tx) Hooks(agentID string) ([]model.Hook, error) {
	rows, err := t.query(`SELECT `+hookCols+` FROM hooks h WHERE $1 = '' OR h.agent_id = $1 ORDER BY h.created_at, h.id`, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Hook{}
	for rows.Next() {
		var h model.Hook
		var hs hookScan
		if err := rows.Scan(hs.dest(&h)...); err != nil {
			return nil, err
		}
		hs.finish(&h)
		out = append(out, h)
	}
	return out, rows.Err()
}

func splitEvents(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// HookDelete removes hook id and its deliveries.
func (t *Tx) HookDelete(id string) error {
	tag, err := t.exec(`WITH gone AS (DELETE FROM deliveries WHERE hook_id = $1)
		DELETE FROM hooks WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// DeliveryInsert queues d as pending, with the transaction's next
// statement.
func (t *Tx) DeliveryInsert(d model.Delivery) error {
	t.later(`INSERT INTO deliveries (id, hook_id, notification_id, state, attempts, next_at, created_at, conflict_id)
		VALUES ($1, $2, $3, 'pending', 0, $4, $5, $6)`, []any{d.ID, d.HookID, d.NotificationID, d.NextAt, d.CreatedAt,
		d.Notice.ConflictID}, nil)
	return nil
}

const deliverySelect = `SELECT d.id, d.hook_id, d.notification_id, d.state, d.attempts, d.next_at, d.last_error,
	d.created_at, d.delivered_at, coalesce(d.claimed_by, ''), d.claimed_until, ` + hookCols + `, n.agent_id, n.event, n.epoch, n.summary, n.unit_id, n.conflict_id,
	n.requires_action, n.created_at
	FROM deliveries d JOIN hooks h ON h.id = d.hook_id JOIN notifications n ON n.id = d.notification_id`

func (t *Tx) deliveries(where string, args ...any) ([]model.Delivery, error) {
	rows, err := t.query(deliverySelect+" "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Delivery{}
	for rows.Next() {
		var d model.Delivery
		var state, claimBy string
		var claimUntil *time.Time
		var hs hookScan
		n := &d.Notice
		dest := append([]any{&d.ID, &d.HookID, &d.NotificationID, &state, &d.Attempts, &d.NextAt, &d.LastError, &d.CreatedAt,
			&d.DeliveredAt, &claimBy, &claimUntil}, hs.dest(&d.Hook)...)
		dest = append(dest, &n.AgentID, &n.Event, &n.Epoch, &n.Summary, &n.MemoryUnitID, &n.ConflictID, &n.RequiresAction, &n.CreatedAt)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		hs.finish(&d.Hook)
		d.State = model.DeliveryState(state)
		d.NextAt, d.CreatedAt, n.CreatedAt = d.NextAt.UTC(), d.CreatedAt.UTC(), n.CreatedAt.UTC()
		if d.DeliveredAt != nil {
			at := d.DeliveredAt.UTC()
			d.DeliveredAt = &at
		}
		if claimUntil != nil && d.State == model.DeliveryPending {
			at := claimUntil.UTC()
			d.ClaimedUntil, d.Claim = &at, claimBy
		}
		n.ID = d.NotificationID
		out = append(out, d)
	}
	return out, rows.Err()
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
	tag, err := t.exec(`UPDATE deliveries SET state = 'pending', attempts = 0, next_at = $1, claimed_by = NULL,
		claimed_until = NULL WHERE state = 'dead' AND ($2 = '' OR id = $2)`, now, id)
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() == 0 && id != "" {
		return 0, store.ErrNotFound
	}
	return int(tag.RowsAffected()), nil
}
