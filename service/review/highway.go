package review

import (
	"context"
	"time"

	"arbiter/model"
)

// Highway is what the review screen and the commands ask of a field
// beyond Desk for escalations with owners and deadlines: approving or
// modifying a proposal, sending a conflict back for rework, and sweeping
// the deadlines. *Service implements it; an adapter that cannot may leave
// it out (the screen then offers none of it).
type Highway interface {
	Approve(ctx context.Context, callerID string, req model.ApproveRequest) (model.MergeResponse, error)
	Rework(ctx context.Context, callerID string, req model.ReworkRequest) (model.ReworkResponse, error)
	Sweep(ctx context.Context) (model.SweepReport, error)
	// Now is the time the service's rules run at: what deadlines and time
	// left are measured against.
	Now() time.Time
}

var _ Highway = (*Service)(nil)

// Now is the service's clock (time.Now unless WithClock set another).
func (s *Service) Now() time.Time { return s.now() }
