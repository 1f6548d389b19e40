package postgres

import (
	"errors"
	"time"

	"arbiter/store"

	"github.com/jackc/pgx/v5"
)

// HookDisable disables hook id and gives up its pending deliveries.
func (t *Tx) HookDisable(id, why string, at time.Time) (int, error) {
	var disabled *time.Time
	err := t.row(`SELECT disabled_at FROM hooks WHERE id = $1 FOR UPDATE`, id).Scan(&disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, store.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	if disabled != nil {
		return 0, store.ErrStale
	}
	if _, err := t.exec(`UPDATE hooks SET disabled_at = $1, disabled_why = $2 WHERE id = $3`, at, why, id); err != nil {
		return 0, err
	}
	tag, err := t.exec(`UPDATE deliveries SET state = 'dead', last_error = $1, claimed_by = NULL, claimed_until = NULL
		WHERE hook_id = $2 AND state = 'pending'`, why, id)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

// HookEnable enables hook id again.
func (t *Tx) HookEnable(id string) error {
	tag, err := t.exec(`UPDATE hooks SET disabled_at = NULL, disabled_why = '' WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}
