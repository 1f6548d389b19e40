package sqlite

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// claimWaits is the condition on a delivery d (with its hook h) that
// store.Claim describes, hooks listed in ?2 (a JSON array) left out:
// pending and enabled, and not waiting for an earlier notice of its
// conflict to its hook (one probe of deliveries_order). claimable adds:
// due at ?1 (a time) and held by no claim.
const claimWaits = `d.state = 'pending' AND h.disabled_at IS NULL
	AND d.hook_id NOT IN (SELECT value FROM json_each(?2))
	AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.hook_id = d.hook_id AND e.conflict_id = d.conflict_id
		AND e.state = 'pending' AND e.notification_id < d.notification_id)`

const claimable = claimWaits + ` AND d.next_at <= ?1 AND (d.claimed_until IS NULL OR d.claimed_until <= ?1)`

// skipList is hooks as the JSON array claimWaits reads.
func skipList(hooks []string) string {
	if len(hooks) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(hooks)
	return string(b)
}

// DeliveryClaim claims deliveries for c.Token. A write transaction on
// SQLite holds the whole file, so a claim is exclusive.
func (t *Tx) DeliveryClaim(c store.Claim) ([]model.Delivery, error) {
	rows, err := t.query(`UPDATE deliveries SET claimed_by = ?3, claimed_until = ?4
		WHERE id IN (SELECT id FROM (SELECT d.id, d.next_at,
				row_number() OVER (PARTITION BY d.hook_id ORDER BY d.next_at, d.id) AS k
			FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE `+claimable+`) WHERE ?6 <= 0 OR k <= ?6 ORDER BY next_at, id LIMIT ?5)
		RETURNING id`, fmtTime(c.Now), skipList(c.Skip), c.Token, fmtTime(c.Now.Add(c.Lease)), c.Limit, c.PerHook)
	if err != nil {
		return nil, err
	}
	ids, err := collectIDs(rows)
	if err != nil || len(ids) == 0 {
		return []model.Delivery{}, err
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
	return t.deliveries(`WHERE d.id IN (`+marks+`) ORDER BY d.next_at, d.id`, ids...)
}

func collectIDs(rows *sql.Rows) ([]any, error) {
	defer rows.Close()
	var ids []any
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// DeliveryRenew extends the claims held on deliveries to until.
func (t *Tx) DeliveryRenew(held map[string]string, until time.Time) ([]string, error) {
	if len(held) == 0 {
		return []string{}, nil
	}
	rows, err := t.query(`UPDATE deliveries SET claimed_until = ? FROM json_each(?) h
		WHERE deliveries.id = h.key AND deliveries.claimed_by = h.value AND deliveries.state = 'pending'
		RETURNING deliveries.id`, fmtTime(until), jsonOf(held))
	if err != nil {
		return nil, err
	}
	kept, err := collectIDs(rows)
	out := make([]string, len(kept))
	for i, id := range kept {
		out[i] = id.(string)
	}
	return out, err
}

// DeliveryRecord records tries, each over the claim it was sent under.
func (t *Tx) DeliveryRecord(ds ...model.Delivery) ([]string, error) {
	stale := []string{}
	for _, d := range ds {
		var delivered any
		if d.DeliveredAt != nil {
			delivered = fmtTime(*d.DeliveredAt)
		}
		res, err := t.exec(`UPDATE deliveries SET state = ?, attempts = ?, next_at = ?, last_error = ?, delivered_at = ?,
			claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ? AND state = 'pending'`,
			string(d.State), d.Attempts, fmtTime(d.NextAt), d.LastError, delivered, d.ID, d.Claim)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			stale = append(stale, d.ID)
		}
	}
	return stale, nil
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// DeliveryNext is when the earliest claimable delivery is due: the
// first unclaimed one in the order of deliveries_due, or the first claim
// to run out (deliveries_claimed: few rows), whichever comes first.
func (t *Tx) DeliveryNext(skip []string) (*time.Time, error) {
	waits := strings.ReplaceAll(claimWaits, "?2", "?1")
	var free, held sql.NullString
	err := t.row(`SELECT
		(SELECT d.next_at FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE `+waits+` AND d.claimed_until IS NULL ORDER BY d.next_at LIMIT 1),
		(SELECT min(max(d.next_at, d.claimed_until)) FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE `+waits+` AND d.claimed_until IS NOT NULL)`, skipList(skip)).Scan(&free, &held)
	if err != nil {
		return nil, err
	}
	var next *time.Time
	for _, at := range []sql.NullString{free, held} {
		if v := parseTime(at.String); at.Valid && (next == nil || v.Before(*next)) {
			next = &v
		}
	}
	return next, nil
}
