package sqlite

import "arbiter/model"

// DeliveryRecord records tries, each over the claim it was sent under:
// one statement a try (a write holds the whole file, and a statement is
// no round trip); it returns those whose claim no longer held them.
func (t *Tx) DeliveryRecord(ds ...model.Delivery) ([]string, error) {
	stale := []string{}
	for _, d := range ds {
		n, err := t.E.Exec(`UPDATE deliveries SET state = $1, attempts = $2, next_at = $3, last_error = $4, delivered_at = $5,
			claimed_by = NULL, claimed_until = NULL WHERE id = $6 AND claimed_by = $7 AND state = 'pending'`,
			string(d.State), d.Attempts, d.NextAt, d.LastError, d.DeliveredAt, d.ID, d.Claim)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			stale = append(stale, d.ID)
		}
	}
	return stale, nil
}
