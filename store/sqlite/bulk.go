package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/sqlcore"
)

// Bulk writes many rows in one transaction with statements prepared once,
// for a generator or an import filling a field. It writes rows exactly as
// given, with the ids and sequence numbers the caller chose: keeping them
// consistent (statuses, resolutions, who may decide) is the caller's job,
// since the rules live in review, not here.
type Bulk struct {
	ctx                                                                    context.Context
	units, relations, conflicts, decisions, ballots, notifications, events *sql.Stmt
}

// Bulk prepares the statements of a bulk write in t. Close it before the
// transaction ends.
func (t *Tx) Bulk() (store.Bulk, error) {
	b := &Bulk{ctx: t.ctx}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&b.units, sqlcore.InsertUnit},
		{&b.relations, sqlcore.InsertRelation},
		{&b.conflicts, sqlcore.InsertConflict},
		{&b.decisions, sqlcore.SetConflict},
		{&b.ballots, sqlcore.PutBallot},
		{&b.notifications, sqlcore.InsertNotification},
		{&b.events, sqlcore.InsertEvent},
	} {
		s, err := t.tx.PrepareContext(t.ctx, p.sql)
		if err != nil {
			b.Close()
			return nil, err
		}
		*p.stmt = s
	}
	return b, nil
}

// Close releases the prepared statements.
func (b *Bulk) Close() error {
	var errs []error
	for _, s := range []*sql.Stmt{b.units, b.relations, b.conflicts, b.decisions, b.ballots, b.notifications, b.events} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// Unit stores u, whose id is set, at sequence number seq, with its
// relations.
func (b *Bulk) Unit(seq int64, u model.Unit) error {
	if _, err := b.units.ExecContext(b.ctx, bind(sqlcore.UnitArgs(seq, u))...); err != nil {
		return err
	}
	for _, r := range u.Relations {
		if _, err := b.relations.ExecContext(b.ctx, sqlcore.RelationArgs(u.ID, r)...); err != nil {
			return err
		}
	}
	return nil
}

// Conflict stores c, whose id is set, at sequence number seq, at the
// version c carries.
func (b *Bulk) Conflict(seq int64, c model.Conflict) error {
	_, err := b.conflicts.ExecContext(b.ctx, bind(sqlcore.ConflictArgs(seq, c))...)
	return err
}

// Decision writes c's status, escalation, vote and resolution, and its
// version, over the stored conflict's; ErrNotFound if there is none.
func (b *Bulk) Decision(c model.Conflict) error {
	r, err := b.decisions.ExecContext(b.ctx, bind(append(sqlcore.MutableArgs(c), c.Version, c.ID))...)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Ballot stores a voter's ballot (or replaces the voter's earlier one).
func (b *Bulk) Ballot(v model.Ballot) error {
	_, err := b.ballots.ExecContext(b.ctx, bind(sqlcore.BallotArgs(v))...)
	return err
}

// Notification puts n in its agent's outbox, with id n.ID if it is set
// (the next id otherwise).
func (b *Bulk) Notification(n model.Notification) error {
	_, err := b.notifications.ExecContext(b.ctx, bind(append([]any{sqlcore.IDOrNull(n.ID)}, sqlcore.NotificationArgs(n)...))...)
	return err
}

// Event appends e to the log, with id e.ID if it is set.
func (b *Bulk) Event(e model.Event) error {
	_, err := b.events.ExecContext(b.ctx, bind(append([]any{sqlcore.IDOrNull(e.ID)}, sqlcore.EventArgs(e)...))...)
	return err
}
