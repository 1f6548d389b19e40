package postgres

import (
	"time"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// DeliveryRecord records tries, each over the claim it was sent under,
// in one statement (arrays of the rows' values, read by unnest: one
// round trip whatever the count); it returns those whose claim no longer
// held them.
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
	done, err := sqlcore.Collect(t.E, `UPDATE deliveries d SET state = u.state, attempts = u.attempts, next_at = u.next_at,
			last_error = u.last_error, delivered_at = u.delivered_at, claimed_by = NULL, claimed_until = NULL
		FROM unnest($1::text[], $2::text[], $3::integer[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::text[])
			AS u(id, state, attempts, next_at, last_error, delivered_at, claim)
		WHERE d.id = u.id AND d.claimed_by = u.claim AND d.state = 'pending' RETURNING d.id`,
		[]any{ids, states, attempts, next, errs, delivered, claims}, sqlcore.ScanText)
	if err != nil {
		return nil, err
	}
	recorded := make(map[string]bool, len(done))
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
