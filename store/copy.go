package store

import (
	"context"
	"fmt"

	"arbiter/model"
)

// Copy writes the whole of from into to, which must be empty, whichever
// engines keep them: the policy, agents (with the epochs they registered
// at and their database roles), units with their relations, conflicts,
// ballots, notifications and events, each with its id and sequence
// number, what it knows of forks (its identity, its links, the
// provenance of what joins brought), what detection keeps (the pairs
// said not to contradict, where the scan stands), and the clock. It reads from in one
// read transaction and writes to in one write transaction, so a live
// from is copied as it stood at one moment, and to holds all of it or
// nothing.
//
// It refuses a to that holds anything already: an agent, a unit, a
// conflict, an event or a clock past zero. It returns the digest of the
// copy (Digest), read back from to after the commit; it fails if that
// differs from the digest of what it read from from.
func Copy(ctx context.Context, from, to Field) (Summary, error) {
	return CopyCounting(ctx, from, to, nil)
}

// CopyCounting is Copy that calls rows, when it is not nil, with each row
// written (a unit, a conflict, a ballot, a notification, an event), for a
// progress report.
func CopyCounting(ctx context.Context, from, to Field, rows func(n int64)) (Summary, error) {
	var want Summary
	err := from.Read(ctx, func(src Tx) error {
		if err := to.Write(ctx, func(dst Tx) error { return copyInto(src, dst, rows) }); err != nil {
			return err
		}
		var err error
		want, err = Digest(src)
		return err
	})
	if err != nil {
		return want, err
	}
	var got Summary
	if err := to.Read(ctx, func(tx Tx) (err error) { got, err = Digest(tx); return err }); err != nil {
		return got, err
	}
	if got != want {
		return got, fmt.Errorf("the copy differs from its source: the source holds %v; the copy %v", want, got)
	}
	return got, nil
}

// ErrNotEmpty is Copy's refusal of a destination that holds a field
// already.
var ErrNotEmpty = fmt.Errorf("the destination is not empty")

// CopySize estimates how many rows Copy writes from tx: its units,
// conflicts, notifications and events (as many as the clock's ticks),
// for a progress report's total; ballots, a few, are left out.
func CopySize(tx interface {
	ClockTx
	UnitTx
	ConflictTx
	NoticeTx
}) (int64, error) {
	units, err := tx.UnitCount()
	if err != nil {
		return 0, err
	}
	counts, err := tx.ConflictCount()
	if err != nil {
		return 0, err
	}
	notifications, err := tx.NotificationCount()
	if err != nil {
		return 0, err
	}
	epoch, err := tx.Epoch()
	n := units + notifications + epoch
	for _, c := range counts {
		n += int64(c)
	}
	return n, err
}

func copyInto(src, dst Tx, rows func(int64)) error {
	if err := refuseNonEmpty(dst); err != nil {
		return err
	}
	p, err := src.Policy()
	if err != nil {
		return err
	}
	if err := dst.PolicySet(p); err != nil {
		return err
	}
	if err := src.AgentEach(func(a model.Agent, epoch int64) error { return dst.AgentInsert(a, epoch) }); err != nil {
		return err
	}
	b, err := dst.Bulk()
	if err != nil {
		return err
	}
	if rows == nil {
		rows = func(int64) {}
	}
	steps := []func() error{
		func() error {
			return src.UnitEach(func(seq int64, u model.Unit) error { rows(1); return b.Unit(seq, u) })
		},
		func() error {
			return src.ConflictEachStored(func(seq int64, c model.Conflict) error { rows(1); return b.Conflict(seq, c) })
		},
		func() error { return src.BallotEach(func(v model.Ballot) error { rows(1); return b.Ballot(v) }) },
		func() error {
			return src.NotificationEach(func(n model.Notification) error { rows(1); return b.Notification(n) })
		},
		func() error { return src.EventEach(func(e model.Event) error { rows(1); return b.Event(e) }) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			b.Close()
			return err
		}
	}
	if err := b.Close(); err != nil {
		return err
	}
	if err := copyForks(src, dst); err != nil {
		return err
	}
	if err := copyDetection(src, dst); err != nil {
		return err
	}
	epoch, err := src.Epoch()
	if err != nil || epoch == 0 {
		return err
	}
	got, err := dst.EpochWitness(epoch - 1)
	if err == nil && got != epoch {
		err = fmt.Errorf("the copy's clock stands at %d, not %d", got, epoch)
	}
	return err
}

// copyDetection copies the pairs people said are not a contradiction and
// where the field's scan stands.
func copyDetection(src, dst Tx) error {
	if err := src.DetectDismissedEach(dst.DetectDismiss); err != nil {
		return err
	}
	scan, err := src.DetectScan()
	switch {
	case err == ErrNotFound:
		return nil
	case err != nil:
		return err
	}
	return dst.DetectScanSave(scan)
}

// copyForks copies what the field knows of forks: its identity, the
// links to the fields it was forked from or to, and the provenance of
// what joins brought.
func copyForks(src, dst Tx) error {
	links, err := src.FieldLinks()
	if err != nil {
		return err
	}
	for _, l := range links {
		if err := dst.FieldLinkPut(l); err != nil {
			return err
		}
	}
	return src.ProvenanceEach(dst.ProvenancePut)
}

// refuseNonEmpty returns ErrNotEmpty, saying what tx holds, unless it
// holds nothing but a policy.
func refuseNonEmpty(tx Tx) error {
	epoch, err := tx.Epoch()
	if err != nil {
		return err
	}
	agents, err := tx.Agents()
	if err != nil {
		return err
	}
	units, err := tx.UnitCount()
	if err != nil {
		return err
	}
	counts, err := tx.ConflictCount()
	if err != nil {
		return err
	}
	conflicts := 0
	for _, n := range counts {
		conflicts += n
	}
	events := 0
	err = tx.EventEach(func(model.Event) error {
		events++
		return errStop
	})
	if err != nil && err != errStop {
		return err
	}
	if epoch != 0 || len(agents) > 0 || units > 0 || conflicts > 0 || events > 0 {
		return fmt.Errorf("%w: it holds %s, %s and %s, and its clock is at %d",
			ErrNotEmpty, count(len(agents), "agent"), count(int(units), "unit"), count(conflicts, "conflict"), epoch)
	}
	return nil
}

var errStop = fmt.Errorf("stop")

// count is "1 unit", "2 units".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
