package sqlite

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// HookInsert stores h, whose id is set.
func (t *Tx) HookInsert(h model.Hook) error {
	_, err := t.exec(`INSERT INTO hooks (id, agent_id, url, format, events, secret, created_by, created_at, allow_private)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, h.ID, h.AgentID, h.URL, string(h.Format), strings.Join(h.Events, ","),
		h.Secret, h.CreatedBy, fmtTime(h.CreatedAt), h.AllowPrivate)
	return err
}

const hookCols = `h.id, h.agent_id, h.url, h.format, h.events, h.secret, h.created_by, h.created_at,
	h.allow_private, h.disabled_at, h.disabled_why`

// Hooks lists the hooks for agentID ("" for all), oldest first.
func (t *Tx) Hooks(agentID string) ([]model.Hook, error) {
	rows, err := t.query(`SELECT `+hookCols+` FROM hooks h WHERE ? = '' OR h.agent_id = ? ORDER BY h.created_at, h.id`, agentID, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []model.Hook{}
	for rows.Next() {
		var h model.Hook
		if err := scanHook(rows, &h); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(...any) error }

// hookScan reads hookCols into a hook.
type hookScan struct {
	format, events, at string
	disabled           sql.NullString
}

func (s *hookScan) dest(h *model.Hook) []any {
	return []any{&h.ID, &h.AgentID, &h.URL, &s.format, &s.events, &h.Secret, &h.CreatedBy, &s.at,
		&h.AllowPrivate, &s.disabled, &h.DisabledWhy}
}

func (s *hookScan) finish(h *model.Hook) {
	h.Format, h.Events, h.CreatedAt = model.HookFormat(s.format), splitEvents(s.events), parseTime(s.at)
	h.DisabledAt = nil
	if s.disabled.Valid {
		at := parseTime(s.disabled.String)
		h.DisabledAt = &at
	}
}

func scanHook(r scanner, h *model.Hook) error {
	var hs hookScan
	if err := r.Scan(hs.dest(h)...); err != nil {
		return err
	}
	hs.finish(h)
	return nil
}

func splitEvents(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// HookDelete removes hook id and its deliveries.
func (t *Tx) HookDelete(id string) error {
	if _, err := t.exec(`DELETE FROM deliveries WHERE hook_id = ?`, id); err != nil {
		return err
	}
	res, err := t.exec(`DELETE FROM hooks WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// DeliveryInsert queues d as pending.
func (t *Tx) DeliveryInsert(d model.Delivery) error {
	_, err := t.exec(`INSERT INTO deliveries (id, hook_id, notification_id, state, attempts, next_at, created_at, conflict_id)
		VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`, d.ID, d.HookID, d.NotificationID, fmtTime(d.NextAt), fmtTime(d.CreatedAt),
		d.Notice.ConflictID)
	return err
}

const deliverySelect = `SELECT d.id, d.hook_id, d.notification_id, d.state, d.attempts, d.next_at, d.last_error,
	d.created_at, d.delivered_at, d.claimed_by, d.claimed_until, ` + hookCols + `, n.agent_id, n.event, n.epoch, n.summary, n.unit_id, n.conflict_id,
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
		var state, next, created, noticeAt string
		var delivered, claimBy, claimUntil sql.NullString
		var hs hookScan
		n := &d.Notice
		dest := append([]any{&d.ID, &d.HookID, &d.NotificationID, &state, &d.Attempts, &next, &d.LastError, &created, &delivered,
			&claimBy, &claimUntil}, hs.dest(&d.Hook)...)
		dest = append(dest, &n.AgentID, &n.Event, &n.Epoch, &n.Summary, &n.MemoryUnitID, &n.ConflictID, &n.RequiresAction, &noticeAt)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		hs.finish(&d.Hook)
		d.State, d.NextAt, d.CreatedAt = model.DeliveryState(state), parseTime(next), parseTime(created)
		if delivered.Valid {
			at := parseTime(delivered.String)
			d.DeliveredAt = &at
		}
		if claimUntil.Valid && d.State == model.DeliveryPending {
			at := parseTime(claimUntil.String)
			d.ClaimedUntil, d.Claim = &at, claimBy.String
		}
		n.ID, n.CreatedAt = d.NotificationID, parseTime(noticeAt)
		out = append(out, d)
	}
	return out, rows.Err()
}

// Deliveries lists deliveries, newest first.
func (t *Tx) Deliveries(q model.DeliveryQuery) ([]model.Delivery, error) {
	where, args := "", []any{}
	if q.State != "" {
		where, args = "WHERE d.state = ?", append(args, string(q.State))
	}
	where += " ORDER BY d.created_at DESC, d.id DESC"
	if q.Limit > 0 {
		where += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return t.deliveries(where, args...)
}

// DeliveryRetry queues dead deliveries again.
func (t *Tx) DeliveryRetry(id string, now time.Time) (int, error) {
	res, err := t.exec(`UPDATE deliveries SET state = 'pending', attempts = 0, next_at = ?, claimed_by = NULL,
		claimed_until = NULL WHERE state = 'dead' AND (? = '' OR id = ?)`, fmtTime(now), id, id)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if n == 0 && id != "" {
		return 0, store.ErrNotFound
	}
	return int(n), nil
}
