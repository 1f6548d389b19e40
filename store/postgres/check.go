package postgres

import (
	"context"

	"arbiter/model"
	"arbiter/store"
)

// Check reads the field's format row through a connection of the pool (a
// round trip to the server, and a real read of the schema), and asks the
// server whether it takes writes: a standby in recovery does not.
func (s *Store) Check(ctx context.Context) error {
	var recovering bool
	err := s.Read(ctx, func(stx store.Tx) error {
		return stx.(*Tx).row(`SELECT pg_is_in_recovery() FROM field_format`).Scan(&recovering)
	})
	switch {
	case err != nil:
		return err
	case recovering && !s.readOnly:
		return model.Errorf("CHECK", model.CodeReadOnly, "point the field at the primary server",
			"the field's server is a standby in recovery and takes no writes")
	}
	return nil
}
