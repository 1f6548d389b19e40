package sqlite

import (
	"arbiter/model"
	"arbiter/store/sqlcore"
)

// Inbox lists an agent's notifications after id since, oldest first, at
// most limit (0: all). Writes take turns on a SQLite file, so ids grow
// in commit order.
func (t *Tx) Inbox(agentID string, since int64, limit int) ([]model.Notification, error) {
	if limit <= 0 {
		limit = -1
	}
	return sqlcore.Notifications(t.E, inboxSQL, agentID, since, limit)
}

var inboxSQL = `SELECT ` + sqlcore.NotificationCols + ` FROM notifications WHERE agent_id = $1 AND id > $2 ORDER BY id LIMIT $3`
