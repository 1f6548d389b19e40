package review

import (
	"context"

	"arbiter/model"
	"arbiter/store"
)

// EachConflict is List for long lists: it calls fn with each conflict
// summary q selects, in order, as the field yields it, all in one read
// transaction, so that a caller can print the first while the rest are
// read. Votes carry the quorum. An error from fn stops it.
func (s *Service) EachConflict(ctx context.Context, q model.ListQuery, fn func(model.ConflictSummary) error) error {
	return s.st.Read(ctx, func(tx store.Tx) error {
		p, err := tx.Policy()
		if err != nil {
			return err
		}
		return tx.ConflictEach(q, func(c model.ConflictSummary) error {
			if c.Tally != nil {
				c.Tally.Quorum = p.Quorum
			}
			return fn(c)
		})
	})
}
