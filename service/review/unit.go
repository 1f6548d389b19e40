package review

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"arbiter/model"
	"arbiter/store"
)

// Unit returns everything known of one unit: its relations both ways, its
// author and the conflicts it is in (oldest first); UNIT_NOT_FOUND if the
// field has no such unit.
func (s *Service) Unit(ctx context.Context, id string) (model.UnitDetail, error) {
	var d model.UnitDetail
	err := s.st.Read(ctx, func(tx store.Tx) error {
		u, err := tx.Unit(id)
		if errors.Is(err, store.ErrNotFound) {
			return model.Errorf(model.OpAttune, model.CodeUnitNotFound, "list the conflicts with `arbiter list` to find unit ids",
				"there is no unit %q", id)
		}
		if err != nil {
			return err
		}
		d.Unit = u
		if p, err := tx.Provenance(model.ProvenanceUnit, id); err == nil {
			d.Provenance = &p
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if a, err := tx.Agent(u.Source.AgentID); err == nil {
			d.Agent = &a
		}
		if d.Incoming, err = tx.RelationsTo(id); err != nil {
			return err
		}
		cs, err := tx.ConflictsOfUnit(id)
		if err != nil {
			return err
		}
		slices.SortFunc(cs, func(a, b model.Conflict) int { return cmp.Compare(a.Epoch, b.Epoch) })
		d.Conflicts = append([]model.Conflict{}, cs...)
		return nil
	})
	return d, err
}
