package sqlite

import (
	"encoding/json"
	"time"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// The claims' writes of many rows (sqlcore's claims.go has the rest):
// a JSON object of the rows, read by json_each.

// DeliveryRenew extends the claims held on deliveries to until.
func (t *Tx) DeliveryRenew(held map[string]string, until time.Time) ([]string, error) {
	if len(held) == 0 {
		return []string{}, nil
	}
	b, err := json.Marshal(held)
	if err != nil {
		return nil, err
	}
	return sqlcore.Collect(t.E, `UPDATE deliveries SET claimed_until = $1 FROM json_each($2) h
		WHERE deliveries.id = h.key AND deliveries.claimed_by = h.value AND deliveries.state = 'pending'
		RETURNING deliveries.id`, []any{until, string(b)}, scanID)
}

// DeliveryRecord records tries, each over the claim it was sent under:
// one statement a try (a write holds the whole file, and a statement is
// no round trip).
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

func scanID(r sqlcore.Row) (string, error) {
	var id string
	err := r.Scan(&id)
	return id, err
}
