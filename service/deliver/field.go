package deliver

import (
	"context"

	"arbiter/model"
	"arbiter/store"
)

// deliveryTx is what the deliverer reads and writes of a field: the deliveries
// (claiming them and recording each try), and the route of a conflict a
// slack message names.
type deliveryTx interface {
	store.HookTx
	Conflict(id string) (model.Conflict, error)
}

// read and write run fn in a transaction of st, seen as deliveryTx.
func read(ctx context.Context, st store.Field, fn func(deliveryTx) error) error {
	return st.Read(ctx, func(t store.Tx) error { return fn(t) })
}

func write(ctx context.Context, st store.Field, fn func(deliveryTx) error) error {
	return st.Write(ctx, func(t store.Tx) error { return fn(t) })
}
