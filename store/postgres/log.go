package postgres

import (
	"arbiter/model"
	"arbiter/store/sqlcore"

	"github.com/jackc/pgx/v5"
)

// NotificationInsert puts n in its agent's outbox and returns its id: one
// of the sequence's, growing within the write. The row goes with the
// transaction's next statement.
func (t *Tx) NotificationInsert(n model.Notification) (int64, error) {
	if len(t.notes) == 0 {
		// A write that notifies mostly notifies several agents: their
		// ids in one round trip. One it does not use is a gap no outbox
		// shows, since each agent's holds ids of every agent's.
		rows, err := t.query(`SELECT next_number('notifications') FROM generate_series(1, $1::int)`, noteBlock)
		if err != nil {
			return 0, err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return 0, err
		}
		t.notes = ids
	}
	id := t.notes[0]
	t.notes = t.notes[1:]
	t.later(sqlcore.InsertNotification, append([]any{id}, sqlcore.NotificationArgs(n)...), nil)
	return id, nil
}

// noteBlock is how many notification ids a write takes at a time.
const noteBlock = 4

// Inbox lists an agent's notifications after the one numbered since,
// oldest first, at most limit (0: all).
//
// Writes commit in parallel and take ids as they go, so a notification
// with a smaller id may commit after one with a larger. The outbox is
// read in the order of (writing transaction, id), and only below the
// oldest write of the field still running (inbox_page and the horizons
// in the schema): nothing can appear there any more, so what was read
// once stays where it was, and the next read after it misses nothing.
// since names a notification of the agent's (its place in that order);
// 0, or a number that is none of the agent's, reads from the first
// notification numbered above it.
//
// Read first in its transaction, the page is read before the
// transaction's snapshot, at READ COMMITTED, where it sees every commit
// up to then, the reader's own among them; read after something else, in
// the transaction's snapshot, it may stop short of a write that ended
// while that snapshot was taken (the next read takes it) — unless the
// transaction is a ReadTail, whose horizon was reckoned before it.
func (t *Tx) Inbox(agentID string, since int64, limit int) ([]model.Notification, error) {
	if t.horizon != "" {
		return sqlcore.Notifications(t.E, `SELECT `+sqlcore.NotificationCols+` FROM notifications n
			WHERE n.agent_id = $1 AND n.xid < $4::xid8 AND `+afterNotice("$2")+`
			ORDER BY n.xid, n.id LIMIT CASE WHEN $3::int > 0 THEN $3::int END`, agentID, since, limit, t.horizon)
	}
	sql := `SELECT ` + sqlcore.NotificationCols + ` FROM inbox_page($1, $2, $3) notifications`
	if t.begun || t.write {
		return sqlcore.Notifications(t.E, sql, agentID, since, limit)
	}
	return sqlcore.Notifications(ahead{engine{t}}, sql, agentID, since, limit)
}

// ahead is a transaction whose queries run before it begins
// (queryAhead).
type ahead struct{ engine }

func (a ahead) Query(sql string, args ...any) (sqlcore.Rows, error) {
	rows, err := a.t.queryAhead(sql, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// EventAppend adds e to the append-only log and returns its id (the
// next of the sequence, or the one taken with the tick); the row goes
// with the transaction's next statement.
func (t *Tx) EventAppend(e model.Event) (int64, error) {
	id := t.event
	t.event = 0
	var err error
	if id == 0 {
		id, err = t.nextSeq("events")
	}
	if err != nil {
		return 0, err
	}
	t.later(sqlcore.InsertEvent, append([]any{id}, sqlcore.EventArgs(e)...), nil)
	return id, nil
}
