package fieldgen

import (
	"context"

	"arbiter/store"
)

// genTx is what a generator writes of a field: the agents, rows in bulk
// (units, conflicts, ballots, notices, events) and the clock.
type genTx interface {
	store.ClockTx
	store.AgentTx
	store.ImportTx
}

// write runs fn in a write transaction of st, seen as genTx.
func write(ctx context.Context, st store.Field, fn func(genTx) error) error {
	return st.Write(ctx, func(tx store.Tx) error { return fn(tx) })
}
