package tui

import (
	"context"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/service/demo"
	"arbiter/service/review"
	"arbiter/store"
	arbiterfield "arbiter/store/field"
)

// Behind a connection pooler without listen_db the screen learns of
// others' decisions by polling, and its header says so.
func TestTheHeaderSaysTheScreenPollsBehindAPooler(t *testing.T) {
	ctx := context.Background()
	name := pgtest.Field(t)
	pooled := pgtest.Pooler(t, name)
	st, err := arbiterfield.Create(ctx, name, demo.Policy())
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.Populate(ctx, review.New(st).WithClock(demo.Clock(steppingClock(screenNow)))); err != nil {
		t.Fatal(err)
	}
	st.Close()
	behind, err := arbiterfield.Open(ctx, pooled, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { behind.Close() })
	s := start(t, review.New(behind), demo.Operator, 200, 30)
	s.waitFor("POLLING", "without listen_db, changes are read every 2 s", "▸ conflict-008")
}
