package sqlite

import (
	"time"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// The inbox's own order in a file (store.Personal; the rest is
// sqlcore's): its notices are numbered in the order they were written,
// so the inbox's order is their ids'.

// InboxRecent lists agentID's notices newest first, before the one
// numbered before (0: from the newest), at most limit (0: all).
func (t *Tx) InboxRecent(agentID string, before int64, limit int) ([]model.Notification, error) {
	if before <= 0 {
		before = 1 << 62
	}
	if limit <= 0 {
		limit = -1
	}
	return sqlcore.Notifications(t.E, inboxRecentSQL, agentID, before, limit)
}

var inboxRecentSQL = `SELECT ` + sqlcore.NotificationCols + ` FROM notifications WHERE agent_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`

// InboxCount is how many of agentID's notices are numbered above after.
func (t *Tx) InboxCount(agentID string, after int64) (int, error) {
	var n int
	err := sqlcore.QueryRow(t.E, `SELECT count(*) FROM notifications WHERE agent_id = $1 AND id > $2`, agentID, after).Scan(&n)
	return n, err
}

// InboxMarkSet moves agentID's read mark forward to id.
func (t *Tx) InboxMarkSet(agentID string, id int64, at time.Time) error {
	_, err := t.E.Exec(`INSERT INTO inbox_read (agent_id, notification_id, read_at) VALUES ($1, $2, $3)
		ON CONFLICT (agent_id) DO UPDATE SET notification_id = excluded.notification_id, read_at = excluded.read_at
		WHERE excluded.notification_id > inbox_read.notification_id`, agentID, id, at)
	return err
}
