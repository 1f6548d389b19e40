package serve

import (
	"context"
	"time"

	"arbiter/internal/broadcast"
	"arbiter/service/review"
)

// desk is the field as a served screen sees it: the rules, with the
// field's changes heard from the process's one watch of the field
// (server.changes, which also wakes the MCP sessions) instead of each
// screen's own polls.
type desk struct {
	*review.Service
	changes *broadcast.Changes
}

// WaitChange returns the field's change number once it differs from
// since (review.ChangeWaiter).
func (d desk) WaitChange(ctx context.Context, since int64, every time.Duration) (int64, error) {
	return d.changes.WaitChange(ctx, since, every)
}

var _ review.ChangeWaiter = desk{}
