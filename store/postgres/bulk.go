package postgres

import (
	"fmt"

	"arbiter/model"
	"arbiter/store"
	"arbiter/store/sqlcore"

	"github.com/jackc/pgx/v5"
)

// Bulk writes many rows in one transaction, exactly as given, for a
// generator, an import or a copy filling a field. It gathers rows and
// copies them in (COPY) every bulkRows rows and at Close, each table in
// an order the foreign keys accept: units, relations, conflicts (with
// the decisions on conflicts still gathered applied to them), decisions
// on conflicts written before, ballots, notifications, events. Errors of
// a copy come back from the call that started it, or from Close.
type Bulk struct {
	t *Tx

	units, relations [][]any
	relationSeen     map[[3]string]bool
	conflicts        []model.Conflict
	conflictSeq      []int64
	gathered         map[string]int // conflict id → index in conflicts
	decisions        []model.Conflict
	ballots          []model.Ballot
	notifications    []model.Notification
	events           []model.Event
	n                int
}

// bulkRows is how many rows Bulk gathers before copying them in.
const bulkRows = 20000

// Bulk starts a bulk write in t. Rows stored with numbers of their own
// move the sequences past them (align_numbers) at each flush; a write of
// someone else's meanwhile may meet one of those numbers and fail.
func (t *Tx) Bulk() (store.Bulk, error) {
	return &Bulk{t: t, relationSeen: map[[3]string]bool{}, gathered: map[string]int{}}, nil
}

func (b *Bulk) added(n int) error {
	b.n += n
	if b.n >= bulkRows {
		return b.flush()
	}
	return nil
}

// Unit stores u, whose id is set, at sequence number seq, with its
// relations (a relation given twice is stored once).
func (b *Bulk) Unit(seq int64, u model.Unit) error {
	b.units = append(b.units, sqlcore.UnitArgs(seq, u))
	for _, r := range u.Relations {
		k := [3]string{u.ID, string(r.Type), r.TargetID}
		if b.relationSeen[k] {
			continue
		}
		b.relationSeen[k] = true
		b.relations = append(b.relations, sqlcore.RelationArgs(u.ID, r))
	}
	return b.added(1 + len(u.Relations))
}

// Conflict stores c, whose id is set, at sequence number seq, at the
// version c carries.
func (b *Bulk) Conflict(seq int64, c model.Conflict) error {
	b.gathered[c.ID] = len(b.conflicts)
	b.conflicts = append(b.conflicts, c)
	b.conflictSeq = append(b.conflictSeq, seq)
	return b.added(1)
}

// Decision writes c's decided state and version over the stored
// conflict's; ErrNotFound (at the copy) if there is none.
func (b *Bulk) Decision(c model.Conflict) error {
	if i, ok := b.gathered[c.ID]; ok {
		kept := b.conflicts[i]
		kept.Status, kept.Escalation, kept.VoteOpened, kept.Resolution = c.Status, c.Escalation, c.VoteOpened, c.Resolution
		kept.Route, kept.Proposal, kept.Rework, kept.Version = c.Route, c.Proposal, c.Rework, c.Version
		b.conflicts[i] = kept
		return nil
	}
	b.decisions = append(b.decisions, c)
	return b.added(1)
}

// Ballot stores a voter's ballot, or replaces the voter's earlier one.
func (b *Bulk) Ballot(v model.Ballot) error {
	b.ballots = append(b.ballots, v)
	return b.added(1)
}

// Notification puts n in its agent's outbox, with n.ID if it is set.
func (b *Bulk) Notification(n model.Notification) error {
	b.notifications = append(b.notifications, n)
	return b.added(1)
}

// Event appends e to the log, with e.ID if it is set.
func (b *Bulk) Event(e model.Event) error {
	b.events = append(b.events, e)
	return b.added(1)
}

// Close writes what is gathered.
func (b *Bulk) Close() error { return b.flush() }

// flush copies the gathered rows in.
func (b *Bulk) flush() error {
	t := b.t
	copyIn := func(table string, cols []string, rows [][]any) error {
		if len(rows) == 0 {
			return nil
		}
		n, err := t.conn.CopyFrom(t.ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		if err != nil {
			return fmt.Errorf("copy into %s: %w", table, err)
		}
		if n != int64(len(rows)) {
			return fmt.Errorf("copy into %s: %d of %d rows", table, n, len(rows))
		}
		return nil
	}
	if err := t.flush(); err != nil {
		return err
	}
	if err := copyIn("units", sqlcore.UnitColumns, b.units); err != nil {
		return err
	}
	if err := copyIn("relations", sqlcore.RelationColumns, b.relations); err != nil {
		return err
	}
	conflicts := make([][]any, len(b.conflicts))
	for i, c := range b.conflicts {
		conflicts[i] = sqlcore.ConflictArgs(b.conflictSeq[i], c)
	}
	if err := copyIn("conflicts", sqlcore.ConflictColumns, conflicts); err != nil {
		return err
	}
	if err := b.flushDecisions(); err != nil {
		return err
	}
	if err := b.flushBallots(); err != nil {
		return err
	}
	// Rows without an id of their own get the next of the sequence (the
	// table's trigger).
	rows := make([][]any, len(b.notifications))
	for i, n := range b.notifications {
		rows[i] = append([]any{sqlcore.IDOrNull(n.ID)}, sqlcore.NotificationArgs(n)...)
	}
	if err := copyIn("notifications", sqlcore.NotificationColumns, rows); err != nil {
		return err
	}
	rows = make([][]any, len(b.events))
	for i, e := range b.events {
		rows[i] = append([]any{sqlcore.IDOrNull(e.ID)}, sqlcore.EventArgs(e)...)
	}
	if err := copyIn("events", sqlcore.EventColumns, rows); err != nil {
		return err
	}
	if _, err := t.exec(`SELECT align_numbers()`); err != nil {
		return err
	}
	b.units, b.relations, b.conflicts, b.conflictSeq = b.units[:0], b.relations[:0], b.conflicts[:0], b.conflictSeq[:0]
	b.decisions, b.ballots, b.notifications, b.events = b.decisions[:0], b.ballots[:0], b.notifications[:0], b.events[:0]
	clear(b.relationSeen)
	clear(b.gathered)
	b.n = 0
	return nil
}

// flushDecisions writes the decisions on conflicts written before, in
// one round trip.
func (b *Bulk) flushDecisions() error {
	if len(b.decisions) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, c := range b.decisions {
		batch.Queue(sqlcore.SetConflict, append(sqlcore.MutableArgs(c), c.Version, c.ID)...)
	}
	res := b.t.conn.SendBatch(b.t.ctx, batch)
	defer res.Close()
	for _, c := range b.decisions {
		tag, err := res.Exec()
		if err != nil {
			return fmt.Errorf("decision on %s: %w", c.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("decision on %s: %w", c.ID, ErrNotFound)
		}
	}
	return res.Close()
}

// flushBallots writes the ballots in one round trip, a later ballot of a
// voter replacing an earlier one.
func (b *Bulk) flushBallots() error {
	if len(b.ballots) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, v := range b.ballots {
		batch.Queue(sqlcore.PutBallot, sqlcore.BallotArgs(v)...)
	}
	res := b.t.conn.SendBatch(b.t.ctx, batch)
	defer res.Close()
	for _, v := range b.ballots {
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("ballot on %s: %w", v.ConflictID, err)
		}
	}
	return res.Close()
}
