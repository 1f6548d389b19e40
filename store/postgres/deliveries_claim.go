package postgres

import (
	"time"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// The claims' writes of many rows (sqlcore's claims.go has the rest):
// arrays of the rows' values, read by unnest, one round trip whatever
// the count.

// DeliveryRenew extends the claims held on deliveries to until.
func (t *Tx) DeliveryRenew(held map[string]string, until time.Time) ([]string, error) {
	if len(held) == 0 {
		return []string{}, nil
	}
	ids, claims := make([]string, 0, len(held)), make([]string, 0, len(held))
	for id, c := range held {
		ids, claims = append(ids, id), append(claims, c)
	}
	return sqlcore.Collect(t.E, `UPDATE deliveries d SET claimed_until = $1 FROM unnest($2::text[], $3::text[]) AS h(id, claim)
		WHERE d.id = h.id AND d.claimed_by = h.claim AND d.state = 'pending' RETURNING d.id`,
		[]any{until, ids, claims}, scanID)
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
	done, err := sqlcore.Collect(t.E, `UPDATE deliveries d SET state = u.state, attempts = u.attempts, next_at = u.next_at,
			last_error = u.last_error, delivered_at = u.delivered_at, claimed_by = NULL, claimed_until = NULL
		FROM unnest($1::text[], $2::text[], $3::integer[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::text[])
			AS u(id, state, attempts, next_at, last_error, delivered_at, claim)
		WHERE d.id = u.id AND d.claimed_by = u.claim AND d.state = 'pending' RETURNING d.id`,
		[]any{ids, states, attempts, next, errs, delivered, claims}, scanID)
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

func scanID(r sqlcore.Row) (string, error) {
	var id string
	err := r.Scan(&id)
	return id, err
}
