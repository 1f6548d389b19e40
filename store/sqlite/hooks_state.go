package sqlite

import (
	"time"

	"arbiter/store"
)

// HookDisable disables hook id and gives up its pending deliveries.
func (t *Tx) HookDisable(id, why string, at time.Time) (int, error) {
	var disabled *string
	if err := t.row(`SELECT disabled_at FROM hooks WHERE id = ?`, id).Scan(&disabled); err != nil {
		return 0, notFound(err)
	}
	if disabled != nil {
		return 0, store.ErrStale
	}
	if _, err := t.exec(`UPDATE hooks SET disabled_at = ?, disabled_why = ? WHERE id = ?`, fmtTime(at), why, id); err != nil {
		return 0, err
	}
	res, err := t.exec(`UPDATE deliveries SET state = 'dead', last_error = ?, claimed_by = NULL, claimed_until = NULL
		WHERE hook_id = ? AND state = 'pending'`, why, id)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// HookEnable enables hook id again.
func (t *Tx) HookEnable(id string) error {
	res, err := t.exec(`UPDATE hooks SET disabled_at = NULL, disabled_why = '' WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}
