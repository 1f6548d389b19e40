package review

import (
	"context"
	"errors"

	"arbiter/model"
	"arbiter/store"
)

// The walk back from a unit along supersedes relations stops after this
// many relations in a row, or once it has reached this many units, so a
// field with very long chains or a cycle written by another program
// costs a bounded number of queries.
const (
	maxAncestryDepth = 64
	maxAncestryUnits = 2048
)

// Ancestry returns the nearest unit both units of a conflict revise
// (through supersedes relations, directly or along chains), or nil when
// they share none. CONFLICT_NOT_FOUND if there is no such conflict.
func (s *Service) Ancestry(ctx context.Context, conflictID string) (*model.Ancestor, error) {
	var anc *model.Ancestor
	err := s.st.Read(ctx, func(tx store.Tx) error {
		c, err := tx.Conflict(conflictID)
		if errors.Is(err, store.ErrNotFound) {
			return model.Errorf(model.OpDetect, model.CodeConflictNotFound, "", "there is no conflict %q", conflictID)
		}
		if err != nil {
			return err
		}
		anc, err = ancestry(tx, c)
		return err
	})
	return anc, err
}

// ancestry walks back from both units of c and picks their nearest
// common ancestor.
func ancestry(tx store.Tx, c model.Conflict) (*model.Ancestor, error) {
	a, err := lineage(tx, c.UnitA)
	if err != nil {
		return nil, err
	}
	b, err := lineage(tx, c.UnitB)
	if err != nil {
		return nil, err
	}
	anc, ok := model.NearestCommonAncestor(a, b)
	if !ok {
		return nil, nil
	}
	return &anc, nil
}

// lineage walks back from start along supersedes relations, breadth
// first, within maxAncestryDepth relations and maxAncestryUnits units.
func lineage(tx store.Tx, start string) (*model.Lineage, error) {
	l := model.NewLineage(start)
	frontier := []string{start}
	for depth := 0; depth < maxAncestryDepth && len(frontier) > 0; depth++ {
		var next []string
		for _, id := range frontier {
			targets, err := tx.Supersedes(id)
			if err != nil {
				return nil, err
			}
			for _, t := range targets {
				if l.Len() >= maxAncestryUnits {
					return l, nil
				}
				if l.Reach(id, t) {
					next = append(next, t)
				}
			}
		}
		frontier = next
	}
	return l, nil
}
