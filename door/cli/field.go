package cli

import (
	"context"

	"arbiter/store"
)

// countTx is what the command line reads of a field itself: how much it
// holds (the units after init, the size of a copy for its progress).
// Everything else goes through review.
type countTx interface {
	store.ClockTx
	store.UnitTx
	store.ConflictTx
	store.NoticeTx
}

// readCounts runs fn in a read transaction of st, seen as countTx.
func readCounts(ctx context.Context, st store.Field, fn func(countTx) error) error {
	return st.Read(ctx, func(tx store.Tx) error { return fn(tx) })
}
