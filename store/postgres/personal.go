package postgres

import (
	"time"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// The inbox's own order on a server (store.Personal; the rest is
// sqlcore's): (writing transaction, id), read below the oldest write
// still running (log.go, Inbox). The newest-first list and the count of
// what came after a notice read in that order and below that horizon, so
// that a notice read as the newest one shown is never passed by one that
// commits later.

// afterNotice is true of a notification n that comes after the agent's
// ($1) notice numbered by the parameter p in the inbox's order; a number
// that is none of the agent's compares by id.
func afterNotice(p string) string {
	return `coalesce((n.xid, n.id) > ((SELECT m.xid FROM notifications m WHERE m.agent_id = $1 AND m.id = ` + p + `), ` + p + `), n.id > ` + p + `)`
}

// InboxRecent lists agentID's notices newest first, before the one
// numbered before (0: from the newest), at most limit (0: all).
func (t *Tx) InboxRecent(agentID string, before int64, limit int) ([]model.Notification, error) {
	return sqlcore.Notifications(t.E, `SELECT `+sqlcore.NotificationCols+` FROM notifications n
		WHERE n.agent_id = $1 AND n.xid < `+t.below("$4")+`
		AND ($2::bigint <= 0 OR NOT `+afterNotice("$2")+` AND n.id <> $2)
		ORDER BY n.xid DESC, n.id DESC LIMIT CASE WHEN $3::int > 0 THEN $3::int END`, t.withHorizon(agentID, before, limit)...)
}

// InboxCount is how many of agentID's notices come after the one
// numbered after.
func (t *Tx) InboxCount(agentID string, after int64) (int, error) {
	var n int
	err := sqlcore.QueryRow(t.E, `SELECT count(*) FROM notifications n WHERE n.agent_id = $1 AND n.xid < `+t.below("$3")+`
		AND ($2::bigint <= 0 OR `+afterNotice("$2")+`)`, t.withHorizon(agentID, after)...).Scan(&n)
	return n, err
}

// InboxMarkSet moves agentID's read mark forward to id, in the inbox's
// order.
func (t *Tx) InboxMarkSet(agentID string, id int64, at time.Time) error {
	_, err := t.E.Exec(`INSERT INTO inbox_read (agent_id, notification_id, read_at) VALUES ($1, $2, $3)
		ON CONFLICT (agent_id) DO UPDATE SET notification_id = excluded.notification_id, read_at = excluded.read_at
		WHERE coalesce((SELECT (m.xid, m.id) > (o.xid, o.id) FROM notifications o, notifications m
				WHERE o.agent_id = $1 AND o.id = inbox_read.notification_id AND m.agent_id = $1 AND m.id = $2),
			excluded.notification_id > inbox_read.notification_id)`, agentID, id, at)
	return err
}

// withHorizon is args, and the ReadTail's horizon after them when it has
// one (below).
func (t *Tx) withHorizon(args ...any) []any {
	if t.horizon != "" {
		return append(args, t.horizon)
	}
	return args
}
