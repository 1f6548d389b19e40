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

// DeliveryRenew extends the claims held on deliveries to until.
func (t *Tx) DeliveryRenew(held map[string]string, until time.Time) ([]string, error) {
	if len(held) == 0 {
		return []string{}, nil
	}
	ids, claims := make([]string, 0, len(held)), make([]string, 0, len(held))
	for id, c := range held {
		ids, claims = append(ids, id), append(claims, c)
	}
	rows, err := t.query(`UPDATE deliveries d SET claimed_until = $1 FROM unnest($2::text[], $3::text[]) AS h(id, claim)
		WHERE d.id = h.id AND d.claimed_by = h.claim AND d.state = 'pending' RETURNING d.id`, until, ids, claims)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// DeliveryRecord records tries, each over the claim it was sent under,
// in one statement.
func (t *Tx) DeliveryRecord(ds ...model.Delivery) ([]string, error) {
	if len(ds) == 0 {
		return []string{}, nil
	}
	n := len(ds)
	ids, states, claims, errs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	attempts, next, delivered := make([]int32, n), make([]time.Time, n), make([]*time.Time, n)
	for i, d := range ds {
		ids[i], states[i], claims[i], errs[i] = d.ID, string(d.State), d.Claim, d.LastError
		attempts[i], next[i], delivered[i] = int32(d.Attempts), d.NextAt, d.DeliveredAt
	}
	rows, err := t.query(`UPDATE deliveries d SET state = u.state, attempts = u.attempts, next_at = u.next_at,
			last_error = u.last_error, delivered_at = u.delivered_at, claimed_by = NULL, claimed_until = NULL
		FROM unnest($1::text[], $2::text[], $3::integer[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::text[])
			AS u(id, state, attempts, next_at, last_error, delivered_at, claim)
		WHERE d.id = u.id AND d.claimed_by = u.claim AND d.state = 'pending' RETURNING d.id`,
		ids, states, attempts, next, errs, delivered, claims)
	if err != nil {
		return nil, err
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	recorded := map[string]bool{}
	for _, id := range done {
		recorded[id] = true
	}
	stale := []string{}
	for _, id := range ids {
		if !recorded[id] {
			stale = append(stale, id)
		}
	}
	return stale, nil
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
