package review

import (
	"context"

	"arbiter/model"
)

// Desk is what the review screen and the reviewing commands (list, show,
// merge, vote, reopen) ask of whatever holds the conflicts: an arbiter
// field through its rules (*Service), or another program's memory file
// through an adapter that speaks in the same terms. What an adapter cannot
// do it refuses with a protocol error, and its policy says which
// strategies it refuses (model.Policy.Refused), so that the screen offers
// only what works.
type Desk interface {
	// ReadOnly reports whether decisions are refused, and why.
	ReadOnly() (bool, string)
	// Offline returns the decisions file decisions go to, when they do.
	Offline() (string, bool)
	// OfflineDecided lists the conflicts the decisions file decides
	// already, each with a few words on how.
	OfflineDecided() (map[string]string, error)
	// Changed returns a number that differs whenever someone wrote.
	Changed(ctx context.Context) (int64, error)

	Policy(ctx context.Context) (model.Policy, error)
	Agent(ctx context.Context, id string) (model.Agent, error)
	Agents(ctx context.Context) ([]model.Agent, error)
	// VotedOn lists the conflicts put to a vote agentID has voted on.
	VotedOn(ctx context.Context, agentID string) (map[string]bool, error)

	List(ctx context.Context, q model.ListQuery) ([]model.ConflictSummary, error)
	EachConflict(ctx context.Context, q model.ListQuery, fn func(model.ConflictSummary) error) error
	Counts(ctx context.Context) (map[model.ConflictStatus]int, error)
	Detail(ctx context.Context, id string) (model.ConflictDetail, error)
	Unit(ctx context.Context, id string) (model.UnitDetail, error)

	// CheckMerge says whether Merge would take req now, writing nothing.
	CheckMerge(ctx context.Context, callerID string, req model.MergeRequest) error
	Merge(ctx context.Context, callerID string, req model.MergeRequest) (model.MergeResponse, error)
	Vote(ctx context.Context, callerID string, req model.VoteRequest) (model.VoteResponse, error)
	Reopen(ctx context.Context, callerID string, req model.ReopenRequest) (model.ReopenResponse, error)
}

var _ Desk = (*Service)(nil)
