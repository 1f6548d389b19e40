package postgres

import (
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"

	"github.com/jackc/pgx/v5"
)

// claimWaits is the condition on a delivery d (with its hook h) that
// store.Claim describes, hooks in $2 (text[]) left out: pending and
// enabled, and not waiting for an earlier notice of its conflict to its
// hook (one probe of deliveries_order). claimable adds: due at $1, and
// held by no claim.
const claimWaits = `d.state = 'pending' AND h.disabled_at IS NULL AND d.hook_id <> ALL ($2::text[])
	AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.hook_id = d.hook_id AND e.conflict_id = d.conflict_id
		AND e.state = 'pending' AND e.notification_id < d.notification_id)`

const claimable = claimWaits + ` AND d.next_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)`

func skipList(hooks []string) []string {
	if hooks == nil {
		return []string{}
	}
	return hooks
}

// DeliveryClaim claims deliveries for c.Token: rows another transaction
// is claiming are skipped (FOR UPDATE SKIP LOCKED), so concurrent
// workers never get the same one. A locking query cannot number rows
// per hook: it locks the first few times the limit, and the claim takes
// its share of each hook from those (a hook left out for want of room is
// claimed next time, once the hooks before it are full and skipped).
func (t *Tx) DeliveryClaim(c store.Claim) ([]model.Delivery, error) {
	rows, err := t.query(`WITH due AS (SELECT d.id, d.hook_id, d.next_at
			FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE `+claimable+` ORDER BY d.next_at, d.id LIMIT $5 * 4 FOR UPDATE OF d SKIP LOCKED),
		picked AS (SELECT id FROM (SELECT id, next_at,
				row_number() OVER (PARTITION BY hook_id ORDER BY next_at, id) AS k FROM due) r
			WHERE $6 <= 0 OR k <= $6 ORDER BY next_at, id LIMIT $5)
		UPDATE deliveries SET claimed_by = $3, claimed_until = $4 WHERE id IN (SELECT id FROM picked)
		RETURNING id`, c.Now, skipList(c.Skip), c.Token, c.Now.Add(c.Lease), c.Limit, c.PerHook)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(ids) == 0 {
		return []model.Delivery{}, err
	}
	return t.deliveries(`WHERE d.id = ANY($1) ORDER BY d.next_at, d.id`, ids)
}

// DeliveryRenew extends claim's hold on ids to until.
func (t *Tx) DeliveryRenew(claim string, ids []string, until time.Time) ([]string, error) {
	if len(ids) == 0 {
		return []string{}, nil
	}
	rows, err := t.query(`UPDATE deliveries SET claimed_until = $1 WHERE claimed_by = $2 AND state = 'pending'
		AND id = ANY($3) RETURNING id`, until, claim, ids)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// DeliveryNext is when the earliest claimable delivery is due: the
// first unclaimed one in the order of deliveries_due, or the first claim
// to run out (deliveries_claimed: few rows), whichever comes first.
func (t *Tx) DeliveryNext(skip []string) (*time.Time, error) {
	waits := strings.ReplaceAll(claimWaits, "$2", "$1")
	var free, held *time.Time
	err := t.row(`SELECT
		(SELECT d.next_at FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE `+waits+` AND d.claimed_until IS NULL ORDER BY d.next_at LIMIT 1),
		(SELECT min(greatest(d.next_at, d.claimed_until)) FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE `+waits+` AND d.claimed_until IS NOT NULL)`, skipList(skip)).Scan(&free, &held)
	if err != nil {
		return nil, err
	}
	var next *time.Time
	for _, at := range []*time.Time{free, held} {
		if at != nil && (next == nil || at.Before(*next)) {
			v := at.UTC()
			next = &v
		}
	}
	return next, nil
}
