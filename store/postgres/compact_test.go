package postgres_test

import (
	"context"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"

	"github.com/jackc/pgx/v5"
)

// Every 256 epochs a write sums the counts' rows up and drops the ticks
// more than 1024 epochs old: the counts and the epoch read the same.
func TestCompactingKeepsTheCountsAndTheEpoch(t *testing.T) {
	f := newField(t)
	ctx := context.Background()
	for range 3 {
		f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	}
	counts := func() map[model.ConflictStatus]int {
		var c map[model.ConflictStatus]int
		f.Read(t, func(tx store.Tx) (err error) { c, err = tx.ConflictCount(); return err })
		return c
	}
	before := counts()
	witness := func(e int64) {
		if err := f.Store.Write(ctx, func(tx store.Tx) error {
			if err := tx.AgentActAs(rt.Operator); err != nil {
				return err
			}
			_, err := tx.EpochWitness(e)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(table string) int {
		c, err := pgx.Connect(ctx, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	countRows, tickRows := rows("conflict_counts"), rows("ticks")
	witness(1023) // epoch 1024: compacts
	if got := counts(); got[model.StatusDetected] != before[model.StatusDetected] || got[model.StatusDetected] != 3 {
		t.Fatalf("counts after compacting %v, before %v", got, before)
	}
	if n := rows("conflict_counts"); n >= countRows || n > len(model.ConflictStatuses) {
		t.Fatalf("%d rows of counts after compacting, %d before", n, countRows)
	}
	if n := rows("ticks"); n != tickRows+1 {
		t.Fatalf("%d ticks after the first compacting, want all %d kept", n, tickRows+1)
	}
	witness(2047) // epoch 2048: drops the ticks before 1024
	if n := rows("ticks"); n != 2 {
		t.Fatalf("%d ticks, want the two of epochs 1024 and 2048", n)
	}
	if c := f.Clock(t); c != 2048 {
		t.Fatalf("the epoch %d after compacting, want 2048", c)
	}
}
