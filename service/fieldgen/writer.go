package fieldgen

import (
	"context"
	"fmt"

	"arbiter/model"
	"arbiter/store"
)

// writer gathers rows and writes about batch rows per transaction, in an
// order the foreign keys accept: units, new conflicts, decisions on
// conflicts, ballots, then the outboxes and the log. One batch is written in the background while the
// next is gathered.
type writer struct {
	st    store.Field
	batch int

	cur, other *rows
	inflight   chan error // the background write's result; nil when idle
	sent       int        // rows of the batch in flight
	written    int        // rows committed
}

// rows is one batch.
type rows struct {
	units         []seqUnit
	conflicts     []seqConflict
	decisions     []model.Conflict
	ballots       []model.Ballot
	notifications []model.Notification
	events        []model.Event
	n             int
}

type seqUnit struct {
	seq int64
	u   model.Unit
}

type seqConflict struct {
	seq int64
	c   model.Conflict
}

func newWriter(st store.Field, batch int) *writer {
	return &writer{st: st, batch: batch, cur: &rows{}, other: &rows{}}
}

func (w *writer) unit(seq int64, u model.Unit) {
	w.cur.units = append(w.cur.units, seqUnit{seq, u})
	w.cur.n += 1 + len(u.Relations)
}

func (w *writer) conflict(seq int64, c model.Conflict) {
	w.cur.conflicts = append(w.cur.conflicts, seqConflict{seq, c})
	w.cur.n++
}

func (w *writer) decision(c model.Conflict) {
	w.cur.decisions = append(w.cur.decisions, c)
	w.cur.n++
}

func (w *writer) ballot(b model.Ballot) {
	w.cur.ballots = append(w.cur.ballots, b)
	w.cur.n++
}

func (w *writer) notification(n model.Notification) {
	w.cur.notifications = append(w.cur.notifications, n)
	w.cur.n++
}

func (w *writer) event(e model.Event) {
	w.cur.events = append(w.cur.events, e)
	w.cur.n++
}

func (w *writer) pending() int { return w.cur.n }

func (w *writer) full() bool { return w.cur.n >= w.batch }

// flush hands the gathered rows to a background transaction, once the
// one before has committed. The last flush (clock above zero: set the
// field's epoch to it) waits for its own commit.
func (w *writer) flush(ctx context.Context, clock int64) error {
	if err := w.wait(); err != nil {
		return err
	}
	out := w.cur
	w.cur, w.other = w.other, out
	w.cur.reset()
	w.sent, w.inflight = out.n, make(chan error, 1)
	go func() { w.inflight <- w.write(ctx, out, clock) }()
	if clock > 0 {
		return w.wait()
	}
	return nil
}

// wait waits for the background write, if any.
func (w *writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	err := <-w.inflight
	w.inflight = nil
	if err == nil {
		w.written += w.sent
	}
	return err
}

func (r *rows) reset() {
	clear(r.units)
	clear(r.conflicts)
	clear(r.decisions)
	clear(r.notifications)
	clear(r.events)
	r.units, r.conflicts, r.decisions = r.units[:0], r.conflicts[:0], r.decisions[:0]
	r.ballots, r.notifications, r.events = r.ballots[:0], r.notifications[:0], r.events[:0]
	r.n = 0
}

func (w *writer) write(ctx context.Context, r *rows, clock int64) error {
	return write(ctx, w.st, func(tx genTx) error {
		b, err := tx.Bulk()
		if err != nil {
			return err
		}
		if err := writeRows(b, r); err != nil {
			b.Close()
			return err
		}
		// An engine may hold rows back until Close (PostgreSQL copies
		// them in): its error is the batch's.
		if err := b.Close(); err != nil {
			return err
		}
		if clock > 0 {
			got, err := tx.EpochWitness(clock - 1)
			if err != nil {
				return err
			}
			if got != clock {
				return fmt.Errorf("the clock stands at %d, not %d", got, clock)
			}
		}
		return nil
	})
}

// writeRows hands one batch's rows to b, in an order the foreign keys
// accept.
func writeRows(b store.Bulk, r *rows) error {
	{
		for _, x := range r.units {
			if err := b.Unit(x.seq, x.u); err != nil {
				return fmt.Errorf("unit %s: %w", x.u.ID, err)
			}
		}
		for _, x := range r.conflicts {
			if err := b.Conflict(x.seq, x.c); err != nil {
				return fmt.Errorf("conflict %s: %w", x.c.ID, err)
			}
		}
		for _, c := range r.decisions {
			if err := b.Decision(c); err != nil {
				return fmt.Errorf("decision on %s: %w", c.ID, err)
			}
		}
		for _, v := range r.ballots {
			if err := b.Ballot(v); err != nil {
				return fmt.Errorf("ballot on %s: %w", v.ConflictID, err)
			}
		}
		for _, n := range r.notifications {
			if err := b.Notification(n); err != nil {
				return fmt.Errorf("notification: %w", err)
			}
		}
		for _, e := range r.events {
			if err := b.Event(e); err != nil {
				return fmt.Errorf("event %s: %w", e.Operation, err)
			}
		}
		return nil
	}
}
