package interop

import (
	"context"

	"arbiter/store"
)

// exportTx is what an export reads of a field: the clock, the resolved
// conflicts, and the units a synthesis made.
type exportTx interface {
	store.ClockTx
	store.ConflictTx
	store.UnitTx
}

// readExport runs fn in a read transaction of st, seen as exportTx.
//
// An import writes through the rules (review.RegisterIn, OpenConflict:
// agents and conflicts as RECORD makes them, with their notices and
// deliveries), so it holds the whole store.Tx.
func readExport(ctx context.Context, st store.Field, fn func(exportTx) error) error {
	return st.Read(ctx, func(tx store.Tx) error { return fn(tx) })
}
