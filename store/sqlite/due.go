package sqlite

import (
	"time"

	"arbiter/model"
)

// ConflictsDue lists the conflicts whose route asks for something at now:
// a reminder not yet sent (conflicts_remind), or a deadline passed with
// something left to do (conflicts_deadline, which leaves out routes
// without a fallback that were told they are overdue). Both indexes hold
// only routed conflicts that still wait, so a field with nothing due
// answers from two empty index ranges. A conflict due both ways comes
// once; the caller decides what its route asks for (model.Route.DueAt).
func (t *Tx) ConflictsDue(now time.Time) ([]model.Conflict, error) {
	at := fmtTime(now)
	return t.conflicts(dueSQL, at, at)
}

// dueSQL spells each index's condition as the index does, so that SQLite
// reads the index range and nothing else.
const dueSQL = `SELECT ` + conflictCols + ` FROM conflicts c WHERE c.seq IN (
	SELECT seq FROM conflicts WHERE deadline IS NOT NULL AND (fallback IS NOT NULL OR reminded < 2) AND deadline <= ?
	UNION
	SELECT seq FROM conflicts WHERE remind_at IS NOT NULL AND reminded = 0 AND remind_at <= ?)
	ORDER BY coalesce(c.deadline, c.remind_at), c.seq`

// ConflictSetReminded records the reminders sent on id's route, as a
// compare-and-set on the count: ErrStale if it is no longer from. The
// version stays.
func (t *Tx) ConflictSetReminded(id string, from, reminders int) error {
	r, err := t.exec(`UPDATE conflicts SET reminded = ? WHERE id = ? AND reminded = ?`, reminders, id, from)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrStale
	}
	return nil
}
