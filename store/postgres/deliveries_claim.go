package postgres

import (
	"errors"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/store"

	"github.com/jackc/pgx/v5"
)

// claimWaits is the condition on a delivery d (with its hook h and notice
// n) that store.Claim describes, hooks in $2 (text[]) left out: pending
// and enabled, and not waiting for an earlier notice of its conflict to
// its hook (deliveries_order finds one). claimable adds: due at $1, and
// not held by a claim.
const claimWaits = `d.state = 'pending' AND h.disabled_at IS NULL AND d.hook_id <> ALL ($2::text[])
	AND NOT EXISTS (SELECT 1 FROM deliveries e JOIN notifications m ON m.id = e.notification_id
		WHERE e.hook_id = d.hook_id AND e.state = 'pending' AND e.notification_id < d.notification_id
			AND m.conflict_id = n.conflict_id)`

const claimable = claimWaits + ` AND d.next_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)`

func skipList(hooks []string) []string {
	if hooks == nil {
		return []string{}
	}
	return hooks
}

// DeliveryClaim claims deliveries for c.Token: rows another transaction
// is claiming are skipped (FOR UPDATE SKIP LOCKED), so concurrent
// workers never get the same one.
func (t *Tx) DeliveryClaim(c store.Claim) ([]model.Delivery, error) {
	rows, err := t.query(`UPDATE deliveries SET claimed_by = $3, claimed_until = $4
		WHERE id IN (SELECT d.id FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			JOIN notifications n ON n.id = d.notification_id
			WHERE `+claimable+` ORDER BY d.next_at, d.id LIMIT $5 FOR UPDATE OF d SKIP LOCKED)
		RETURNING id`, c.Now, skipList(c.Skip), c.Token, c.Now.Add(c.Lease), c.Limit)
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

// DeliveryNext is when the earliest claimable delivery is due.
func (t *Tx) DeliveryNext(skip []string) (*time.Time, error) {
	var at *time.Time
	err := t.row(`SELECT min(greatest(d.next_at, d.claimed_until))
		FROM deliveries d JOIN hooks h ON h.id = d.hook_id JOIN notifications n ON n.id = d.notification_id
		WHERE `+strings.ReplaceAll(claimWaits, "$2", "$1"), skipList(skip)).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if at != nil {
		v := at.UTC()
		at = &v
	}
	return at, err
}
