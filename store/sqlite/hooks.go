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
	_, err := t.exec(`INSERT INTO hooks (id, agent_id, url, format, events, secret, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, h.ID, h.AgentID, h.URL, string(h.Format), strings.Join(h.Events, ","),
		h.Secret, h.CreatedBy, fmtTime(h.CreatedAt))
	return err
}

const hookCols = `h.id, h.agent_id, h.url, h.format, h.events, h.secret, h.created_by, h.created_at`

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

func scanHook(r scanner, h *model.Hook, more ...any) error {
	var format, events, at string
	if err := r.Scan(append([]any{&h.ID, &h.AgentID, &h.URL, &format, &events, &h.Secret, &h.CreatedBy, &at}, more...)...); err != nil {
		return err
	}
	h.Format, h.Events, h.CreatedAt = model.HookFormat(format), splitEvents(events), parseTime(at)
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
	_, err := t.exec(`INSERT INTO deliveries (id, hook_id, notification_id, state, attempts, next_at, created_at)
		VALUES (?, ?, ?, 'pending', 0, ?, ?)`, d.ID, d.HookID, d.NotificationID, fmtTime(d.NextAt), fmtTime(d.CreatedAt))
	return err
}

const deliverySelect = `SELECT d.id, d.hook_id, d.notification_id, d.state, d.attempts, d.next_at, d.last_error,
	d.created_at, d.delivered_at, ` + hookCols + `, n.agent_id, n.event, n.epoch, n.summary, n.unit_id, n.conflict_id,
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
		var delivered sql.NullString
		n := &d.Notice
		if err := rows.Scan(&d.ID, &d.HookID, &d.NotificationID, &state, &d.Attempts, &next, &d.LastError, &created, &delivered,
			&d.Hook.ID, &d.Hook.AgentID, &d.Hook.URL, (*string)(&d.Hook.Format), new(string), &d.Hook.Secret, &d.Hook.CreatedBy, new(string),
			&n.AgentID, &n.Event, &n.Epoch, &n.Summary, &n.MemoryUnitID, &n.ConflictID, &n.RequiresAction, &noticeAt); err != nil {
			return nil, err
		}
		d.State, d.NextAt, d.CreatedAt = model.DeliveryState(state), parseTime(next), parseTime(created)
		if delivered.Valid {
			at := parseTime(delivered.String)
			d.DeliveredAt = &at
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

// DeliveryClaim claims up to limit due deliveries for worker. A write
// transaction on SQLite holds the whole file, so a claim is exclusive.
func (t *Tx) DeliveryClaim(worker string, now time.Time, lease time.Duration, limit int) ([]model.Delivery, error) {
	rows, err := t.query(`UPDATE deliveries SET claimed_by = ?, claimed_until = ?
		WHERE id IN (SELECT id FROM deliveries WHERE state = 'pending' AND next_at <= ?
			AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_at, id LIMIT ?)
		RETURNING id`, worker, fmtTime(now.Add(lease)), fmtTime(now), fmtTime(now), limit)
	if err != nil {
		return nil, err
	}
	var ids []any
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return []model.Delivery{}, err
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
	return t.deliveries(`WHERE d.id IN (`+marks+`) ORDER BY d.next_at, d.id`, ids...)
}

// DeliveryRecord records worker's try of d and releases the claim.
func (t *Tx) DeliveryRecord(d model.Delivery, worker string) error {
	var delivered any
	if d.DeliveredAt != nil {
		delivered = fmtTime(*d.DeliveredAt)
	}
	res, err := t.exec(`UPDATE deliveries SET state = ?, attempts = ?, next_at = ?, last_error = ?, delivered_at = ?,
		claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ? AND state = 'pending'`,
		string(d.State), d.Attempts, fmtTime(d.NextAt), d.LastError, delivered, d.ID, worker)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrStale
	}
	return nil
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

// DeliveryNext is when the earliest pending delivery is due.
func (t *Tx) DeliveryNext() (*time.Time, error) {
	var at sql.NullString
	if err := t.row(`SELECT min(max(next_at, coalesce(claimed_until, next_at))) FROM deliveries WHERE state = 'pending'`).Scan(&at); err != nil || !at.Valid {
		return nil, err
	}
	v := parseTime(at.String)
	return &v, nil
}
