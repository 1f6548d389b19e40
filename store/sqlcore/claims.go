package sqlcore

import (
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Claims on deliveries (store.Claim). DeliveryRecord, which writes many
// rows each in its own way (one statement a row in a file, one in all on
// a server), is the engines'.

// claimSQL is the statements of a claim and of the next moment one may
// take something: claimWaits is the condition on a delivery d (with its
// hook h) that store.Claim describes, the hooks listed in $2 left out:
// pending and enabled, and not waiting for an earlier notice of its
// conflict to its hook (one probe of deliveries_order); claimable adds:
// due at $1, and held by no claim. A locking query cannot number rows
// per hook: the claim locks the first few times its limit, and takes its
// share of each hook from those (a hook left out for want of room is
// claimed next time, once the hooks before it are full and skipped).
func claimSQL(w Words) (claim, next string) {
	waits := func(skip string) string {
		return `d.state = 'pending' AND h.disabled_at IS NULL AND ` + w.NotIn("d.hook_id", skip) + `
	AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.hook_id = d.hook_id AND e.conflict_id = d.conflict_id
		AND e.state = 'pending' AND e.notification_id < d.notification_id)`
	}
	claimable := waits("$2") + ` AND d.next_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)`
	claim = `WITH due AS (SELECT d.id, d.hook_id, d.next_at
			FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE ` + claimable + ` ORDER BY d.next_at, d.id LIMIT $5 * 4` + w.SkipLocked + `),
		picked AS (SELECT id FROM (SELECT id, next_at,
				row_number() OVER (PARTITION BY hook_id ORDER BY next_at, id) AS k FROM due) r
			WHERE $6 <= 0 OR k <= $6 ORDER BY next_at, id LIMIT $5)
		UPDATE deliveries SET claimed_by = $3, claimed_until = $4 WHERE id IN (SELECT id FROM picked)
		RETURNING id`
	// The first unclaimed one in the order of deliveries_due, or the first
	// claim to run out (deliveries_claimed: few rows), whichever is first.
	next = `SELECT
		(SELECT d.next_at FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE ` + waits("$1") + ` AND d.claimed_until IS NULL ORDER BY d.next_at LIMIT 1),
		(SELECT min(` + w.Greatest + `(d.next_at, d.claimed_until)) FROM deliveries d JOIN hooks h ON h.id = d.hook_id
			WHERE ` + waits("$1") + ` AND d.claimed_until IS NOT NULL)`
	return claim, next
}

// DeliveryClaim claims deliveries for c.Token. On PostgreSQL the rows
// another transaction is claiming are skipped (FOR UPDATE SKIP LOCKED);
// on SQLite a write holds the whole file. Either way concurrent workers
// never get the same delivery.
func (t *Tx) DeliveryClaim(c store.Claim) ([]model.Delivery, error) {
	ids, err := Collect(t.E, t.D.claim, []any{c.Now, t.D.SkipList(c.Skip), c.Token, c.Now.Add(c.Lease), c.Limit, c.PerHook},
		func(r Row) (any, error) { return ScanText(r) })
	if err != nil || len(ids) == 0 {
		return []model.Delivery{}, err
	}
	return t.deliveries(`WHERE d.id IN (`+Places(1, len(ids))+`) ORDER BY d.next_at, d.id`, ids...)
}

// DeliveryNext is when the earliest claimable delivery whose hook is not
// in skip is due.
func (t *Tx) DeliveryNext(skip []string) (*time.Time, error) {
	var free, held Time
	if err := QueryRow(t.E, t.D.deliveryNext, t.D.SkipList(skip)).Scan(&free, &held); err != nil {
		return nil, err
	}
	var next *time.Time
	for _, at := range []Time{free, held} {
		if at.Valid && (next == nil || at.T.Before(*next)) {
			next = at.Ptr()
		}
	}
	return next, nil
}

// DeliveryRenew extends the claims held on deliveries to until, and
// returns those they still held.
func (t *Tx) DeliveryRenew(held map[string]string, until time.Time) ([]string, error) {
	if len(held) == 0 {
		return []string{}, nil
	}
	return Collect(t.E, t.D.Renew, append([]any{until}, t.D.RenewArgs(held)...), ScanText)
}
